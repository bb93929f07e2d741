"""Forms for the claim page's actions. Each carries the version its user saw (optimistic locking)."""

from __future__ import annotations

from typing import Any

from django import forms

from factcheck.claims.models import Claim, Evidence, Verdict


class VersionedForm(forms.Form):
    version = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)
    force = forms.BooleanField(required=False, widget=forms.HiddenInput)


class TriageForm(VersionedForm):
    ACTIONS = [("check", "Check it"), ("dismiss", "Dismiss"), ("research", "Start research")]
    action = forms.ChoiceField(choices=ACTIONS)
    reason = forms.CharField(required=False, max_length=300, widget=forms.TextInput(attrs={"placeholder": "Why dismiss? (required)"}))

    def clean(self) -> dict[str, Any]:
        data = super().clean()
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


class AnnotationForm(forms.Form):
    body = forms.CharField(max_length=20_000, widget=forms.Textarea(attrs={"rows": 3, "placeholder": "Note (Markdown)"}), label="Note")


class EvidenceForm(forms.ModelForm):
    url = forms.URLField(max_length=2000, assume_scheme="https", widget=forms.URLInput(attrs={"placeholder": "https://"}))

    kind = forms.ChoiceField(choices=[("", "Kind of evidence…"), *Evidence.Kind.choices])

    class Meta:
        model = Evidence
        fields = ["kind", "url", "title", "note"]
        widgets = {"note": forms.TextInput(attrs={"placeholder": "What it shows"})}


class VerdictForm(VersionedForm):
    rating = forms.ChoiceField(choices=Verdict.Rating.choices, widget=forms.RadioSelect)
    headline = forms.CharField(max_length=74, help_text="Under 75 characters.", widget=forms.TextInput(attrs={"maxlength": 74, "size": 60}))
    explanation = forms.CharField(widget=forms.Textarea(attrs={"rows": 5}))
    evidence = forms.ModelMultipleChoiceField(queryset=Evidence.objects.none(), required=False, widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args: Any, claim: Claim, evidence: list[Evidence] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["evidence"]
        field.queryset = Evidence.objects.filter(claim=claim)
        # The evidence list is already loaded for the page; reuse it for the choices.
        if evidence is not None:
            field.choices = [(e.pk, f"{e.get_kind_display()}: {e.title}") for e in evidence]


class ReviewForm(VersionedForm):
    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("return", "Return")])
    comment = forms.CharField(required=False, max_length=5000, widget=forms.Textarea(attrs={"rows": 2, "placeholder": "What must change (required to return)"}))

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("decision") == "return" and not (data.get("comment") or "").strip():
            self.add_error("comment", "Say what needs to change before returning the verdict.")
        return data
