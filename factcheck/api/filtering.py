"""Query parameters: the queue's filters (QueueFilterForm, unchanged) plus each endpoint's own,
validated by Django forms (invalid -> 400 with the field errors) and described in the OpenAPI
schema from those same forms, so the schema cannot drift from what the server accepts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from django import forms
from django.core import validators
from django.core.exceptions import NON_FIELD_ERRORS
from django.http import QueryDict
from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import ValidationError

from factcheck.claims.models import Verdict
from factcheck.claims.queue.filters import FILTER_FIELDS, META_MAX_LENGTH, MetadataValuesField, QueueFilterForm, queue_filter_from

QUEUE_FILTER_HELP = {
    "status": "Claim status; repeat for several (status=new&status=check).",
    "type": "Primary claim type; repeat for several.",
    "speaker": "Case-insensitive substring of the speaker's name.",
    "outlet": "Outlet id.",
    "article": "Article id.",
    "article_title": "Case-insensitive substring of the article's title.",
    "meta": "Article metadata as key:value (category:politics); repeat for several: values of one key are alternatives, keys must all match.",
    "score_min": "Lowest check-worthiness score (the model's, 0-1).",
    "score_max": "Highest check-worthiness score (0-1); not below score_min.",
    "assignee": "'mine', 'unassigned' or a user id.",
    "date_from": "Article published on or after (its import date when it has none).",
    "date_to": "Article published on or before; not before date_from.",
    "has_number": "'yes': claims with a parsed quantity; 'no': without.",
    "checked_before": "'yes': a confirmed match to a library fact-check, or a suggestion scoring FACTCHECK_CHECKED_BEFORE_MIN_SCORE (0.03) or more.",
    "tag": "One tag.",
    "run": "A pipeline run's id: the claims that run found first.",
    "import": "An import batch's id: the claims its pipeline runs found first.",
    "q": 'Full-text search (web-search syntax: "quoted phrase", -not, or) over the sentence and speaker.',
    "in_article": "'yes': the search also finds claims whose article's title or text matches.",
}


class ClusterFilterForm(forms.Form):
    min_size = forms.IntegerField(required=False, min_value=1, max_value=1_000_000, help_text="Clusters with at least this many appearances.")


class VerdictFilterForm(forms.Form):
    verdict_status = forms.MultipleChoiceField(
        choices=Verdict.Status.choices, required=False, help_text="Verdict status; repeat for several. Default: every status."
    )
    rating = forms.MultipleChoiceField(choices=Verdict.Rating.choices, required=False, help_text="Rating; repeat for several.")
    claim = forms.IntegerField(required=False, min_value=1, max_value=2**63 - 1, help_text="The claim's id.")


def _regex_pattern(field: forms.Field) -> str | None:
    for validator in field.validators:
        if isinstance(validator, validators.RegexValidator):
            regex = validator.regex  # compiled by the validator; a str only before that
            return regex if isinstance(regex, str) else regex.pattern
    return None


def _limits(field: forms.Field) -> dict[str, Any]:
    limits: dict[str, Any] = {}
    for validator in field.validators:
        if isinstance(validator, validators.MinValueValidator):
            limits["minimum"] = validator.limit_value
        elif isinstance(validator, validators.MaxValueValidator):
            limits["maximum"] = validator.limit_value
        elif isinstance(validator, validators.MaxLengthValidator):
            limits["maxLength"] = validator.limit_value
    return limits


def _choices(field: forms.ChoiceField) -> Iterable[tuple[Any, Any]]:
    # The field normalises what it was given (a list, Choices, a callable) into (value, label)
    # pairs on assignment; the stubs type the property as whatever may be assigned.
    return cast(Iterable[tuple[Any, Any]], field.choices)


def field_schema(field: forms.Field) -> dict[str, Any]:
    """The JSON schema of what a form field accepts (in its canonical spelling)."""
    if isinstance(field, MetadataValuesField):
        return {"type": "array", "items": {"type": "string", "pattern": "^[^:]+:", "maxLength": META_MAX_LENGTH}}
    if isinstance(field, forms.MultipleChoiceField):
        return {"type": "array", "items": {"type": "string", "enum": [str(value) for value, _ in _choices(field)]}}
    if isinstance(field, forms.ChoiceField):
        return {"type": "string", "enum": [str(value) for value, _ in _choices(field) if value != ""]}
    # FloatField subclasses IntegerField: test it first.
    if isinstance(field, forms.FloatField):
        return {"type": "number", **_limits(field)}
    if isinstance(field, forms.IntegerField):
        return {"type": "integer", **_limits(field)}
    if isinstance(field, forms.DateField):
        return {"type": "string", "format": "date"}
    if isinstance(field, forms.RegexField):
        return {"type": "string", "pattern": _regex_pattern(field)}
    if isinstance(field, forms.CharField):
        return {"type": "string", **_limits(field)}
    raise TypeError(f"No schema for form field {type(field).__name__}")


def form_parameters(form_class: type[forms.Form], *, names: tuple[str, ...] | None = None, help_text: dict[str, str] | None = None) -> list[OpenApiParameter]:
    form = form_class()
    parameters = []
    for name in names or tuple(form.fields):
        field = form.fields[name]
        schema = field_schema(field)
        parameters.append(
            OpenApiParameter(
                name=name,
                type=schema,
                location=OpenApiParameter.QUERY,
                required=False,
                description=(help_text or {}).get(name) or str(field.help_text or ""),
                style="form" if schema["type"] == "array" else None,
                explode=True if schema["type"] == "array" else None,
            )
        )
    return parameters


def queue_filter_parameters() -> list[OpenApiParameter]:
    return form_parameters(QueueFilterForm, names=FILTER_FIELDS, help_text=QUEUE_FILTER_HELP)


def field_errors(form: forms.Form) -> dict[str, list[str]]:
    return {
        "non_field_errors" if name == NON_FIELD_ERRORS else name: [error["message"] for error in errors]
        for name, errors in form.errors.get_json_data().items()
    }


def queue_values(params: QueryDict) -> dict[str, Any]:
    """The queue's filter values exactly as the queue reads them, or a 400 for any invalid one
    (where the queue page shows the error and ignores the parameter)."""
    queue_filter = queue_filter_from(params)
    if queue_filter.form.errors:
        raise ValidationError(field_errors(queue_filter.form))
    return queue_filter.values


def validated(form_class: type[forms.Form], params: QueryDict) -> dict[str, Any]:
    """The form's cleaned values, or a 400 listing every invalid parameter."""
    form = form_class(params)
    if not form.is_valid():
        raise ValidationError(field_errors(form))
    return form.cleaned_data
