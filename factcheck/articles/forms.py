from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.template.defaultfilters import filesizeformat

from factcheck.articles.readers import ImportFileError, detect_format
from factcheck.articles.rows import RowError, prepare_article


class UploadForm(forms.Form):
    file = forms.FileField(help_text="CSV or JSON Lines (title, text, url, outlet, author, published_at), a ZIP of .txt/.md/.html, or one such file.")
    outlet = forms.CharField(max_length=200, required=False, help_text="For rows that name no outlet.")

    def clean_file(self) -> Any:
        uploaded = self.cleaned_data["file"]
        if uploaded.size > settings.FACTCHECK_UPLOAD_MAX_BYTES:
            raise forms.ValidationError(f"The file is larger than {filesizeformat(settings.FACTCHECK_UPLOAD_MAX_BYTES)}.")
        try:
            detect_format(uploaded.name)
        except ImportFileError as exc:
            raise forms.ValidationError(str(exc)) from None
        return uploaded


class PasteForm(forms.Form):
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 12}), strip=False)
    title = forms.CharField(max_length=500, required=False)
    url = forms.CharField(max_length=2000, required=False)
    outlet = forms.CharField(max_length=200, required=False)
    author = forms.CharField(max_length=300, required=False)
    published_at = forms.CharField(max_length=60, required=False, help_text="e.g. 2024-05-31 or 2024-05-31T14:00:00+02:00")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not self.errors:
            # The same checks an imported row goes through, shown on the form instead.
            try:
                prepare_article(cleaned, max_text_chars=settings.FACTCHECK_IMPORT_MAX_TEXT_CHARS)
            except RowError as exc:
                raise forms.ValidationError(str(exc)) from None
        return cleaned
