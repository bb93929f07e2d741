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
