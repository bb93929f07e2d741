"""Reviewer notes are Markdown; rendered once, then sanitised so no script or handler survives."""

from __future__ import annotations

import nh3
from django import template
from django.utils.safestring import SafeString, mark_safe
from linkify_it import LinkifyIt
from markdown_it import MarkdownIt

register = template.Library()

# Raw HTML in a note is shown as text, not interpreted; nh3 then keeps only these tags and
# only http(s)/mailto links, whatever markdown-it produced.
_markdown = MarkdownIt("commonmark", {"html": False, "linkify": True}).enable(["table", "strikethrough", "linkify"])
# A bare address pasted into a note becomes a link, found in the text markdown-it has already
# parsed (never inside code or an existing link): only whole http(s) addresses, not
# "www.x.org", e-mail addresses, ftp: or protocol-relative ones.
_markdown.linkify = LinkifyIt(
    schemas={"ftp:": None, "//": None, "mailto:": None},
    options={"fuzzy_link": False, "fuzzy_email": False, "fuzzy_ip": False},
)
ALLOWED_TAGS = {
    "p", "br", "hr", "em", "strong", "del", "code", "pre", "blockquote", "ul", "ol", "li",
    "a", "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}


def render_markdown(source: str) -> str:
    html = _markdown.render(source or "")
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )


@register.filter(name="markdown")
def markdown_filter(source: str) -> SafeString:
    return mark_safe(render_markdown(source))  # noqa: S308 - sanitised by nh3 above
