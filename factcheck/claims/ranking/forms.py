"""The ranking weights form."""

from __future__ import annotations

from typing import Any

from django import forms

from factcheck.claims.ranking.priority import WEIGHT_FIELDS


class RankingWeightsForm(forms.Form):
    """Every ranking weight, each within its range (ranking.WEIGHT_FIELDS)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for weight in WEIGHT_FIELDS:
            self.fields[weight.key] = forms.FloatField(
                label=weight.label, min_value=weight.minimum, max_value=weight.maximum, help_text=weight.help_text,
                widget=forms.NumberInput(attrs={"step": "any"}),
            )
