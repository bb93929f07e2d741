from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.template.defaultfilters import filesizeformat

from factcheck.articles.readers import ImportFileError
from factcheck.factchecks.models import ClaimMatch
from factcheck.factchecks.readers import HEAD_BYTES, detect_layout


class LibraryUploadForm(forms.Form):
    file = forms.FileField(
        help_text="ClaimReview JSON-LD (a document, an array, a feed like /factchecks/feed.jsonld, or JSON lines), "
        "the LIAR TSV layout, or the Snopes vclaims JSON lines layout. The layout is read from the content."
    )
    publisher = forms.CharField(max_length=200, required=False, help_text="For rows that name no publisher (LIAR: PolitiFact, Snopes: Snopes).")

    def clean_file(self) -> Any:
        uploaded = self.cleaned_data["file"]
        if uploaded.size > settings.FACTCHECK_UPLOAD_MAX_BYTES:
            raise forms.ValidationError(f"The file is larger than {filesizeformat(settings.FACTCHECK_UPLOAD_MAX_BYTES)}.")
        head = uploaded.read(HEAD_BYTES)
        uploaded.seek(0)
        try:
            detect_layout(head)
        except ImportFileError as exc:
            raise forms.ValidationError(str(exc)) from None
        return uploaded


class MatchDecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[(ClaimMatch.Status.CONFIRMED, "Confirm"), (ClaimMatch.Status.REJECTED, "Reject")])
    version = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)


class LibrarySearchForm(forms.Form):
    q = forms.CharField(
        max_length=300, required=False, label="Search", help_text="Words of the claim, title or speaker; \"quotes\" for a phrase, -word to leave out."
    )
    publisher = forms.ChoiceField(required=False, choices=[("", "Any publisher")])
    rating = forms.CharField(max_length=100, required=False, label="Rating", help_text="The publisher's words, e.g. false, pants-fire.")
    date_from = forms.DateField(required=False, label="Published from", widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="to", widget=forms.DateInput(attrs={"type": "date"}))
    # The claim a reviewer is searching for (from its page): each result can be attached to it.
    claim = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
    page = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    def __init__(self, *args: Any, publishers: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["publisher"].choices = [("", "Any publisher"), *((name, name) for name in publishers)]  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and start > end:
            raise forms.ValidationError("The start date is after the end date.")
        return data


class MatchAttachForm(forms.Form):
    claim = forms.IntegerField(min_value=1)
    factcheck = forms.IntegerField(min_value=1)
