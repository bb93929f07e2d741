"""Hostile values for the property suite (tests/hostile/test_properties.py): what an attacker or
an unlucky desk puts in a file, a form or a query string. Kept small per example (a huge field
is a few hundred kilobytes, not gigabytes) so a CI run stays short; the limits themselves are
lowered by the tests so that "huge" crosses them."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# CI: a bounded number of examples per property (HOSTILE_EXAMPLES, default 15), no deadline
# (the shared machine's timing varies); `HYPOTHESIS_PROFILE=hostile-deep` explores further.
EXAMPLES = int(os.environ.get("HOSTILE_EXAMPLES", "15"))
settings.register_profile(
    "hostile-ci", max_examples=EXAMPLES, deadline=None, derandomize=False,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
settings.register_profile("hostile-deep", parent=settings.get_profile("hostile-ci"), max_examples=max(EXAMPLES, 300))
_chosen = os.environ.get("HYPOTHESIS_PROFILE", "")
PROFILE = settings.get_profile(_chosen if _chosen.startswith("hostile") else "hostile-ci")

NASTY_STRINGS = [
    "", " ", "\x00", "a\x00b", "\ud800", "\udfff", "\ufeff", "\u202e", "\u200b", "\r", "\r\n", "\n\n\n", "\t", "\x1b[31m",
    "\x7f", "\x85", "\u2028", "NaN", "nan", "Infinity", "-Infinity", "inf", "-inf", "1e999", "-1e999", "1e-999", "-0",
    "0x10", "9" * 400, "=cmd|' /C calc'!A0", "<script>alert(1)</script>", "'; DROP TABLE articles; --", "%", "_", "\\",
    "%00", "../../etc/passwd", "\u0130\u0131", "ß", "\U0001f4a9", "e\u0301", "null", "true", "[]", "{}", '"', "'",
]
NASTY_DATES = [
    "9999-12-31T23:59:59-14:00", "9999-12-31T23:59:59+14:00", "0001-01-01T00:00:00+14:00", "0001-01-01", "0000-01-01",
    "10000-01-01", "+275760-09-13", "-0001-01-01", "2024-02-30", "2024-13-01", "2024-05-31T24:00:00", "2024-05-31T10:00:00+99:00",
    "2024-05-31T10:00:00+23:59", "1699-12-31T23:59:59Z", "1700-01-01T00:00:00Z", "2199-12-31T23:59:59Z", "2200-01-01T00:00:00Z",
    "Fri, 31 Dec 9999 23:59:59 -1400", "Mon, 01 Jan 0001 00:00:00 +1400", "31 December 9999", "January 1, 0001", "1e999",
    "NaN", "9" * 60, "2024-05-31T10:00:00.9999999999Z", "2024-W22-5", "2024-152", "now", "yesterday",
]

control_text = st.text(alphabet=st.characters(codec="utf-8", categories=["Cc", "Cf", "Zs", "Zl", "Zp", "Mn"]), max_size=20)
any_text = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=60)
surrogate_text = st.text(alphabet=st.characters(categories=["Cs"]), min_size=1, max_size=3)
huge_text = st.integers(min_value=2_000, max_value=20_000).map(lambda n: "x" * n)

hostile_text = st.one_of(st.sampled_from(NASTY_STRINGS), any_text, control_text, surrogate_text, huge_text)


@st.composite
def extreme_datetimes(draw: st.DrawFn) -> str:
    """An ISO 8601 date-time anywhere Python can write one, at any offset up to +-14 h."""
    moment = draw(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)))
    minutes = draw(st.integers(min_value=-14 * 60, max_value=14 * 60))
    return moment.replace(tzinfo=timezone(timedelta(minutes=minutes))).isoformat()


hostile_date = st.one_of(st.sampled_from(NASTY_DATES), extreme_datetimes(), st.dates().map(lambda d: d.isoformat()), hostile_text)
hostile_number = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.sampled_from(["1e999", "-1e999", "NaN", "inf", "-inf", "Infinity", "1e308", "-0", "0x1p3", "9" * 5000]),
)


def deep_json(depth: int) -> str:
    return "[" * depth + "]" * depth


json_scalars = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False), st.integers(), any_text)
json_values = st.recursive(json_scalars, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(any_text, inner, max_size=3)), max_leaves=12)

# A raw JSON token placed verbatim in a record: non-finite numbers as JSON text (the json module
# reads them), deep nesting, and any ordinary JSON value.
raw_json_token = st.one_of(
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1" + "0" * 5000, "1" + "0" * 4200]),
    st.integers(min_value=60, max_value=20_000).map(deep_json),
    st.integers(min_value=60, max_value=20_000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    json_values.map(lambda value: json.dumps(value)),
    hostile_number.map(lambda value: json.dumps(value)),
    hostile_date.map(lambda value: json.dumps(value)),
    hostile_text.map(lambda value: json.dumps(value)),
)


def utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC)
