"""Forms for the claim page's and the queue's actions. Each action carries the version its user saw (optimistic locking)."""

from __future__ import annotations

from typing import Any, cast

from django import forms

from factcheck.claims.models import (
    DISMISS_REASON_MAX_CHARS,
    EXPLANATION_MAX_CHARS,
    NOTE_MAX_CHARS,
    REVIEW_COMMENT_MAX_CHARS,
    Claim,
    Evidence,
    Verdict,
)
from factcheck.claims.ranking import WEIGHT_FIELDS
from factcheck.claims.reviewed import CLAIM_REVIEWED_MAX_CHARS
from factcheck.claims.services import BulkKind
from factcheck.keys import key_of


class VersionedForm(forms.Form):
    version = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)
    force = forms.BooleanField(required=False, widget=forms.HiddenInput)


class TriageForm(VersionedForm):
    ACTIONS = [("check", "Check it"), ("dismiss", "Dismiss"), ("research", "Start research")]
    action = forms.ChoiceField(choices=ACTIONS)
    reason = forms.CharField(required=False, max_length=DISMISS_REASON_MAX_CHARS, widget=forms.TextInput(attrs={"placeholder": "Why dismiss? (required)"}))

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("action") == "dismiss" and not (data.get("reason") or "").strip():
            self.add_error("reason", "Say why the claim is dismissed.")
        return data


class AssignForm(VersionedForm):
    # "me", "" (nobody) or a user id (editors).
    to = forms.RegexField(regex=r"^(me|[0-9]*)$", required=False)


class TagForm(forms.Form):
    add = forms.CharField(required=False, max_length=200, help_text="Comma-separated.")
    remove = forms.CharField(required=False, max_length=40)

    def tags_to_add(self) -> list[str]:
        return [t for t in (self.cleaned_data.get("add") or "").split(",") if t.strip()]


class SubmissionKeyField(forms.UUIDField):
    """A key made when the form is shown; sending the same form twice stores its entry once."""

    def __init__(self) -> None:
        super().__init__(required=False, widget=forms.HiddenInput)


def key_widget_attrs(name: str) -> dict[str, str]:
    """A form field's keyboard shortcut (factcheck.keys), as widget attributes."""
    found = key_of(name)
    return {"data-key": found.key, "data-key-help": found.does}


class AnnotationForm(forms.Form):
    submission = SubmissionKeyField()
    body = forms.CharField(
        max_length=NOTE_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": "Note (Markdown)", **key_widget_attrs("claim.note")}),
        label="Note",
    )


class EvidenceForm(forms.ModelForm):
    submission = SubmissionKeyField()
    # The claim page shows these fields without visible labels (a compact row): each names
    # itself to assistive technology, a placeholder being no name.
    url = forms.URLField(
        max_length=2000, assume_scheme="https", widget=forms.URLInput(attrs={"placeholder": "https://", "aria-label": "Address of the evidence"})
    )

    kind = forms.ChoiceField(
        choices=[("", "Kind of evidence…"), *Evidence.Kind.choices],
        widget=forms.Select(attrs={"aria-label": "Kind of evidence", **key_widget_attrs("claim.evidence")}),
    )

    class Meta:
        model = Evidence
        fields = ["kind", "url", "title", "note"]
        widgets = {"note": forms.TextInput(attrs={"placeholder": "What it shows", "aria-label": "What the evidence shows"})}


class VerdictForm(VersionedForm):
    rating = forms.ChoiceField(choices=Verdict.Rating.choices, widget=forms.RadioSelect)
    headline = forms.CharField(
        max_length=74, help_text="Under 75 characters.",
        widget=forms.TextInput(attrs={"maxlength": 74, "size": 60, **key_widget_attrs("claim.headline")}),
    )
    claim_reviewed = forms.CharField(
        max_length=CLAIM_REVIEWED_MAX_CHARS,
        required=False,
        label="Claim reviewed",
        help_text="The claim as you checked it, under 75 characters: the published ClaimReview names it. Empty: made from the sentence.",
        widget=forms.TextInput(attrs={"maxlength": CLAIM_REVIEWED_MAX_CHARS, "size": 60}),
    )
    explanation = forms.CharField(max_length=EXPLANATION_MAX_CHARS, widget=forms.Textarea(attrs={"rows": 5}))
    evidence = forms.ModelMultipleChoiceField(queryset=Evidence.objects.none(), required=False, widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args: Any, claim_ids: list[int], evidence: list[Evidence] | None = None, **kwargs: Any) -> None:
        """`claim_ids`: the cluster's appearances, whose evidence a verdict may cite."""
        super().__init__(*args, **kwargs)
        field = cast(forms.ModelMultipleChoiceField, self.fields["evidence"])
        field.queryset = Evidence.objects.filter(claim_id__in=claim_ids)
        # The evidence list is already loaded for the page; reuse it for the choices.
        if evidence is not None:
            field.choices = [(e.pk, f"{e.get_kind_display()}: {e.title}") for e in evidence]


class SplitForm(VersionedForm):
    reason = forms.CharField(max_length=DISMISS_REASON_MAX_CHARS, widget=forms.TextInput(attrs={"placeholder": "Why is it not the same claim?"}))
    # The claim page the split was made from, to go back to.
    back = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)


class ReviewForm(VersionedForm):
    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("return", "Return")])
    comment = forms.CharField(
        required=False,
        max_length=REVIEW_COMMENT_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": "What must change (required to return)"}),
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("decision") == "return" and not (data.get("comment") or "").strip():
            self.add_error("comment", "Say what needs to change before returning the verdict.")
        return data


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


class RankingWeightsForm(forms.Form):
    """Every ranking weight, each within its range (ranking.WEIGHT_FIELDS)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for weight in WEIGHT_FIELDS:
            self.fields[weight.key] = forms.FloatField(
                label=weight.label, min_value=weight.minimum, max_value=weight.maximum, help_text=weight.help_text,
                widget=forms.NumberInput(attrs={"step": "any"}),
            )
