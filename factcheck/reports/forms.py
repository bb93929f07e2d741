from __future__ import annotations

from typing import Any

from django import forms


class ReportForm(forms.Form):
    """A report's scope: a period (either end may be open), a saved view, or both."""

    date_from = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="To", widget=forms.DateInput(attrs={"type": "date"}))
    view = forms.IntegerField(required=False, min_value=1, label="Saved view")

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        start, end, view = data.get("date_from"), data.get("date_to"), data.get("view")
        if start and end and start > end:
            self.add_error("date_to", "The end date must not be before the start date.")
        if not (start or end or view) and not self.errors:
            raise forms.ValidationError("Choose a period, a saved view, or both.")
        return data


class CsvOptionsForm(forms.Form):
    bom = forms.TypedChoiceField(
        required=False, choices=[("", "no"), ("0", "no"), ("1", "yes")], coerce=lambda value: value == "1",
        empty_value=False,  # type: ignore[arg-type]  # any value is allowed at run time; the stubs say str | None
        error_messages={"invalid_choice": "bom must be 1 (start the file with a UTF-8 byte order mark) or 0."},
    )
