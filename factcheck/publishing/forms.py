from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from factcheck.claims.models import Verdict
from factcheck.publishing.models import Organisation
from factcheck.reports.claimreview import BEST_RATING, WORST_RATING


class OrganisationForm(forms.Form):
    """The organisation's settings, with a label and a ClaimReview number per rating."""

    name = forms.CharField(max_length=200)
    url = forms.URLField(max_length=500, label="Public site", assume_scheme="https")
    public_base_url = forms.URLField(max_length=500, required=False, label="Public base URL of the fact-check pages", assume_scheme="https")
    logo_url = forms.URLField(max_length=500, required=False, label="Logo URL", assume_scheme="https")
    publisher_name = forms.CharField(max_length=200, required=False, label="Publisher named in ClaimReview")
    credit_reviewers = forms.BooleanField(required=False, label="Name the reviewer and the approving editor on public pages")

    def __init__(self, data: Any = None, *, organisation: Organisation) -> None:
        initial: dict[str, Any] = {
            name: getattr(organisation, name) for name in ("name", "url", "public_base_url", "logo_url", "publisher_name", "credit_reviewers")
        }
        for rating, _label in Verdict.Rating.choices:
            initial[f"label_{rating}"] = organisation.rating_label(rating)
            initial[f"value_{rating}"] = organisation.rating_value(rating)
        super().__init__(data, initial=initial)
        for rating, label in Verdict.Rating.choices:
            # In a table row that names the rating: each input says what it is to a screen reader.
            word, number = f"{label}: word shown", f"{label}: ClaimReview number ({WORST_RATING}–{BEST_RATING})"
            self.fields[f"label_{rating}"] = forms.CharField(max_length=40, label=word, widget=forms.TextInput(attrs={"aria-label": word}))
            self.fields[f"value_{rating}"] = forms.IntegerField(
                min_value=WORST_RATING, max_value=BEST_RATING, label=number, widget=forms.NumberInput(attrs={"aria-label": number})
            )

    def rating_rows(self) -> list[tuple[str, forms.BoundField, forms.BoundField]]:
        return [(str(label), self[f"label_{rating}"], self[f"value_{rating}"]) for rating, label in Verdict.Rating.choices]

    def service_arguments(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "name": data["name"],
            "url": data["url"],
            "public_base_url": data["public_base_url"],
            "logo_url": data["logo_url"],
            "publisher_name": data["publisher_name"],
            "credit_reviewers": data["credit_reviewers"],
            "rating_scale": {
                rating: {"label": data[f"label_{rating}"], "value": data[f"value_{rating}"]} for rating, _label in Verdict.Rating.choices
            },
        }

    def add_service_errors(self, error: ValidationError) -> None:
        for field, messages in error.message_dict.items():
            target = field if field in self.fields else None
            for message in messages:
                self.add_error(target, message)


class FeedForm(forms.Form):
    since = forms.DateTimeField(
        required=False, error_messages={"invalid": "since must be an ISO 8601 date or date and time, e.g. 2026-01-31T12:00:00Z."},
    )


class WithdrawForm(forms.Form):
    reason = forms.CharField(max_length=2000)
