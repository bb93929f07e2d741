"""``{{ quantity|quantity }}``: a parsed quantity as people read it ("£1.3bn", "under 1,500 people")."""

from __future__ import annotations

from typing import Any

from django import template

from factcheck.claims.quantities import format_quantity

register = template.Library()


@register.filter(name="quantity")
def quantity_filter(quantity: Any) -> str:
    return format_quantity(quantity) if isinstance(quantity, dict) else ""
