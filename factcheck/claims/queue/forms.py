"""Forms for the queue's row actions, saved views and bulk actions."""

from __future__ import annotations

from typing import Any, cast

from django import forms

from factcheck.claims.models import DISMISS_REASON_MAX_CHARS, Claim
from factcheck.claims.queue.services import BulkKind
from factcheck.claims.workflow.forms import VersionedForm

# --- The triage queue -----------------------------------------------------------------------


class RowActionForm(VersionedForm):
    """A queue row's action: take it, release it, mark it "check it" or dismiss it (with a reason)."""

    ACTIONS = [("assign_me", "Assign to me"), ("release", "Release"), ("check", "Check it"), ("dismiss", "Dismiss")]

    action = forms.ChoiceField(choices=ACTIONS)
    reason = forms.CharField(required=False, max_length=DISMISS_REASON_MAX_CHARS)

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("action") == "dismiss" and not (data.get("reason") or "").strip():
            self.add_error("reason", "Say why it is dismissed.")
        return data


class SavedViewForm(forms.Form):
    name = forms.CharField(max_length=80, strip=True)
    # The queue's query string; re-read through the filter form before it is stored.
    query = forms.CharField(required=False, max_length=2000)


def _tags(raw: str) -> list[str]:
    return [tag for tag in (part.strip().lower() for part in raw.split(",")) if tag]


class BulkForm(forms.Form):
    """A bulk action over the selected claims or over every claim matching the filters."""

    SCOPES = [("selected", "The selected claims"), ("filtered", "Every claim matching the filters")]
    # Statuses a reviewer sets from the queue; the rest belong to the verdict workflow.
    STATUSES = [(s.value, s.label) for s in (Claim.Status.NEW, Claim.Status.CHECK, Claim.Status.DISMISSED, Claim.Status.IN_RESEARCH)]

    action = forms.ChoiceField(choices=BulkKind.choices)
    scope = forms.ChoiceField(choices=SCOPES, initial="selected")
    ids = forms.TypedMultipleChoiceField(coerce=int, required=False, choices=())
    filters = forms.CharField(required=False, max_length=4000)
    assignee = forms.RegexField(required=False, regex=r"^(me|[0-9]+)$", error_messages={"invalid": "Choose someone to assign them to."})
    reason = forms.CharField(required=False, max_length=DISMISS_REASON_MAX_CHARS)
    status = forms.ChoiceField(required=False, choices=[("", "—"), *STATUSES])
    tag_add = forms.CharField(required=False, max_length=200, label="Add tags")
    tag_remove = forms.CharField(required=False, max_length=200, label="Remove tags")
    confirm = forms.BooleanField(required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Any integer id is acceptable here; which claims exist is checked against the database.
        ids = cast(forms.TypedMultipleChoiceField, self.fields["ids"])
        ids.valid_value = lambda value: str(value).isdigit()  # type: ignore[method-assign]  # this field's own check, in place of its method

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        action, scope = data.get("action"), data.get("scope")
        if scope == "selected" and not data.get("ids"):
            self.add_error("ids", "Select some claims first (x, or the boxes), or choose every claim matching the filters.")
        if action == BulkKind.ASSIGN and not data.get("assignee"):
            self.add_error("assignee", "Choose someone to assign them to.")
        if action == BulkKind.DISMISS and not (data.get("reason") or "").strip():
            self.add_error("reason", "Say why they are dismissed.")
        if action == BulkKind.STATUS:
            if not data.get("status"):
                self.add_error("status", "Choose a status.")
            elif data["status"] == Claim.Status.DISMISSED and not (data.get("reason") or "").strip():
                self.add_error("reason", "Say why they are dismissed.")
        if action == BulkKind.TAG and not (_tags(data.get("tag_add") or "") or _tags(data.get("tag_remove") or "")):
            self.add_error("tag_add", "Give a tag to add or to remove.")
        return data

    def params(self, *, actor_id: int) -> dict[str, Any]:
        """The action's arguments as stored on a BulkAction (JSON)."""
        data, action = self.cleaned_data, self.cleaned_data["action"]
        if action == BulkKind.ASSIGN:
            return {"assignee_id": actor_id if data["assignee"] == "me" else int(data["assignee"])}
        if action == BulkKind.DISMISS:
            return {"reason": data["reason"].strip()}
        if action == BulkKind.STATUS:
            return {"status": data["status"], "reason": (data.get("reason") or "").strip()}
        return {"add": _tags(data.get("tag_add") or ""), "remove": _tags(data.get("tag_remove") or "")}
