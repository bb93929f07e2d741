"""Forms for the claim page's actions. Each action carries the version its user saw (optimistic locking)."""

from __future__ import annotations

from typing import Any, cast

from django import forms

from factcheck.claims.models import DISMISS_REASON_MAX_CHARS, EXPLANATION_MAX_CHARS, NOTE_MAX_CHARS, REVIEW_COMMENT_MAX_CHARS, Evidence, Verdict
from factcheck.claims.workflow.reviewed import CLAIM_REVIEWED_MAX_CHARS
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
