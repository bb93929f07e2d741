"""The keyboard shortcuts, each defined once: its key and what it does, by page.

A template marks a control with `key("claim.check")` (Jinja2) or `{% key "claim.check" %}`
(Django templates), which prints `data-key="c" data-key-help="mark “check it”"`:
static/js/keys.js acts on the data-key, and builds the `?` help of every page from the
data-key-help of the controls the page has. A key the script handles itself (j/k over rows,
Ctrl+Enter in a text box, Escape, ?) is documented by `key_doc(...)` on the element it
applies to. Nothing else names a key, so the help cannot list a key the page lacks, nor miss
one it has.
"""

from __future__ import annotations

from dataclasses import dataclass

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString


@dataclass(frozen=True)
class Key:
    key: str  # KeyboardEvent.key
    does: str

    @property
    def label(self) -> str:
        return {"Escape": "Esc", "Enter": "Enter", "Control+Enter": "Ctrl+Enter"}.get(self.key, self.key)


KEYS: dict[str, dict[str, Key]] = {
    "everywhere": {
        "help": Key("?", "show or hide the keys of this page"),
        "escape": Key("Escape", "leave a text field; close this help"),
    },
    "queue": {
        "next": Key("j", "next claim in the list"),
        "previous": Key("k", "previous claim in the list"),
        "open": Key("Enter", "open the claim (its page then goes on through this view)"),
        "select": Key("x", "select the claim for a bulk action"),
        "assign": Key("a", "assign the claim to me"),
        "check": Key("c", "mark the claim “check it”"),
        "dismiss": Key("d", "dismiss the claim: type the reason, Enter"),
        "search": Key("/", "search"),
        "first": Key("g", "back to the first page"),
        "more": Key("n", "the next page of claims"),
    },
    "claim": {
        "queue": Key("u", "back to the queue (the view it was opened from)"),
        "next": Key("j", "skip to the next claim of the view"),
        "check": Key("c", "mark “check it”"),
        "research": Key("r", "start research (the claim becomes yours)"),
        "assign": Key("a", "assign the claim to me"),
        "dismiss": Key("d", "dismiss: type the reason, Enter (then the next claim)"),
        "tag": Key("t", "add tags: type them, Enter"),
        "evidence": Key("e", "add evidence: its kind (type a letter), Tab, address, Tab, title, Enter"),
        "note": Key("n", "write a note; Ctrl+Enter adds it"),
        "rating": Key("1", "verdict rating: 1 to 7 pick the rating in the list"),
        "headline": Key("h", "verdict headline; Tab to “Claim reviewed”, Tab again to the explanation; Ctrl+Enter sends it (then the next claim)"),
        "submit": Key("Control+Enter", "in a text box: send its form"),
    },
    "run": {
        "new_claims": Key("n", "open the claims this run found"),
        "runs": Key("u", "back to all runs"),
    },
    "import": {
        "new_claims": Key("n", "open the claims this import found"),
        "more": Key("u", "import more"),
    },
}


def key_of(name: str) -> Key:
    """`page.action` -> its Key; an unknown name is a template error, not a silent no-op."""
    page, _, action = name.partition(".")
    return KEYS[page][action]


def key_attrs(name: str, key: str | None = None) -> SafeString:
    """The attributes that bind a control; `key` overrides the key for a numbered family
    (the ratings 1-7 share one entry)."""
    found = key_of(name)
    return format_html(' data-key="{}" data-key-help="{}"', key or found.key, found.does)


def key_doc(name: str) -> SafeString:
    """The attributes that document a key the script handles itself on this element."""
    found = key_of(name)
    return format_html(' data-key-doc="{}" data-key-help="{}"', found.key, found.does)


def page_keys(page: str) -> list[Key]:
    return list(KEYS[page].values())


register = template.Library()


@register.simple_tag(name="key")
def key_tag(name: str, key: str = "") -> SafeString:
    return key_attrs(name, key or None)


@register.simple_tag(name="key_doc")
def key_doc_tag(name: str) -> SafeString:
    return key_doc(name)
