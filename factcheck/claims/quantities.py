"""How a parsed quantity reads to a person: "£1.3bn", "$600m", "nearly 1,500 people", "3.5%".

The pipeline stores quantities as numbers with a normalised unit and hedge
(``{"value": 1.3e9, "unit": "GBP", "hedge": "exact"}``, see pipeline/nlp/quantities.py).
Every place that shows one (the claim page through the ``quantity`` template filter, the
queue rows, the claims CSV) formats it here, so they all read the same.

Quantities parsed since issue 29 also carry the hedge as written (``hedge_text``: "nearly"
stays "nearly", it is not a bound), the whole counted noun (``noun``: "ethnic minority
MPs") and, for a vague magnitude, its range and words (``low``/``high``/``magnitude``:
"tens of thousands of old people", not "about 20,000"). Rows stored before then lack those
keys and read as they always did.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

__all__ = ["format_quantities", "format_quantity"]

_CURRENCY_SYMBOLS = {"GBP": "£", "USD": "$", "EUR": "€", "JPY": "¥", "CAD": "C$", "AUD": "A$"}
_CURRENCY_CODES = frozenset(("CHF", "CNY", "INR", "MXN")) | frozenset(_CURRENCY_SYMBOLS)
# Newsroom style for money: "£1.3bn", "$600m", "$2tn".
_MONEY_SCALES = ((1e12, "tn"), (1e9, "bn"), (1e6, "m"))
_COUNT_SCALES = ((1e12, " trillion"), (1e9, " billion"), (1e6, " million"))
# Rows stored without the hedge as written: words that stay true for every phrasing the
# hedge covered then ("nearly", "almost", "less than" were all "approximately-below").
_HEDGE_WORDS = {
    "approximately-below": "under",
    "approximately-above": "over",
    "at-most": "up to",
    "at-least": "at least",
    "approximately": "about",
}


def _trimmed(value: float, places: int = 2) -> str:
    """Up to ``places`` decimals, no trailing zeros, thousands separated: 1.30 -> "1.3", 1500 -> "1,500"."""
    text = f"{value:,.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _scaled(value: float, scales: tuple[tuple[float, str], ...]) -> str:
    for scale, suffix in scales:
        if abs(value) >= scale:
            return _trimmed(value / scale) + suffix
    return ""


def _money(value: float, code: str) -> str:
    amount = _scaled(value, _MONEY_SCALES)
    if not amount:
        # Pence and cents are kept when there are any: "£104.99", "£12,700".
        amount = _trimmed(value, 0) if value == int(value) else f"{value:,.2f}"
    symbol = _CURRENCY_SYMBOLS.get(code)
    return f"{symbol}{amount}" if symbol else f"{code} {amount}"


def _fraction(value: float) -> str:
    for denominator in range(2, 11):
        numerator = round(value * denominator)
        if 0 < numerator < denominator and abs(value - numerator / denominator) < 5e-3:
            return f"{numerator}/{denominator}"
    return f"{_trimmed(value * 100, 1)}%"


def _number(value: float, unit: str) -> str:
    if unit in _CURRENCY_CODES:
        return _money(value, unit)
    if unit == "percent":
        return f"{_trimmed(value)}%"
    if unit == "fraction":
        return _fraction(value)
    number = _scaled(value, _COUNT_SCALES) or _trimmed(value)
    if unit in _PERIODS and value != 1:
        unit += "s"  # the parser keeps a period singular, as "five-year" and "30-year-olds" write it
    return f"{number} {unit}" if unit else number


_PERIODS = frozenset("year month week day hour minute decade century".split())


_MONEY_WORDS = {"GBP": "pounds", "USD": "dollars", "EUR": "euros", "JPY": "yen", "CAD": "Canadian dollars", "AUD": "Australian dollars"}


# A magnitude ending in one of these takes its noun without "of" ("several hundred people").
_SINGULAR_MAGNITUDES = frozenset("dozen hundred thousand million billion trillion".split())


def _vague(magnitude: str, unit: str, noun: str) -> str:
    """ "tens of thousands of old people", "billions of dollars", "hundreds", "several hundred
    people" (a number word in the singular takes its noun without "of")."""
    counted = noun or _MONEY_WORDS.get(unit, unit)
    if not counted:
        return magnitude
    return f"{magnitude} {counted}" if magnitude.rsplit(None, 1)[-1] in _SINGULAR_MAGNITUDES else f"{magnitude} of {counted}"


def format_quantity(quantity: dict[str, Any]) -> str:
    """One stored quantity as a reviewer reads it; its own text when the value is not a number."""
    value = quantity.get("value")
    unit = str(quantity.get("unit") or "")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return str(quantity.get("text") or value or "")
    magnitude = str(quantity.get("magnitude") or "")
    noun = str(quantity.get("noun") or "")
    if magnitude:
        return _vague(magnitude, unit, noun)
    # The counted noun as written ("ethnic minority MPs") where the parser kept it.
    text = _number(float(value), noun if noun and unit not in _CURRENCY_CODES else unit)
    written = str(quantity.get("hedge_text") or "")
    if written.startswith("or "):
        return f"{text} {written}"  # "6 months or more"
    hedge = written or _HEDGE_WORDS.get(str(quantity.get("hedge") or ""))
    return f"{hedge} {text}" if hedge else text


def format_quantities(quantities: Iterable[Any] | None) -> list[str]:
    """The readable form of each well-formed stored quantity, in order."""
    return [format_quantity(quantity) for quantity in quantities or [] if isinstance(quantity, dict)]
