"""Validate one raw import row into the exact values an article row stores. Pure: no database."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from email.utils import parsedate_to_datetime

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from pipeline.text import content_hash, normalise_text

# The dates an import accepts. A date outside them is a typo or a hostile value, and past year
# 9999 (9999-12-31T23:59:59-14:00 is year 10000 in UTC) PostgreSQL stores what Python, psycopg
# and the Spark job cannot read back: one such article took down the pages, the API, the
# export and the pipeline runs that read it. The Article table holds the same bounds as a
# constraint (articles migration 0005), so nothing else can store one either.
EARLIEST_PUBLISHED = datetime(1700, 1, 1, tzinfo=UTC)
LATEST_PUBLISHED = datetime(2200, 1, 1, tzinfo=UTC)  # exclusive

KNOWN_FIELDS = frozenset({"title", "text", "url", "outlet", "author", "published_at"})
MAX_LENGTHS = {"title": 500, "author": 300, "outlet": 200}
MAX_URL_LENGTH = 2000
_validate_url = URLValidator(schemes=["http", "https"])


class RowError(ValueError):
    """Why a row was rejected, in words for the person who made the file."""


# What a bad value can raise from code that validates it: the importers report these as the
# row's error (and log them) rather than failing the file.
ROW_VALUE_ERRORS = (ValueError, TypeError, ArithmeticError, LookupError, AttributeError, RecursionError)


@dataclass(frozen=True)
class PreparedArticle:
    text: str
    content_hash: str
    title: str
    url: str
    author: str
    outlet: str
    published_at: datetime | None
    metadata_json: str


def _as_text(fields: Mapping[str, object], name: str) -> str:
    value = fields.get(name)
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise RowError(f"{name} must be text, got {type(value).__name__}.")


def published_in_range(value: datetime) -> datetime:
    """The date in UTC when it lies within the accepted years; RowError otherwise."""
    try:
        in_utc = value.astimezone(UTC)
    except OverflowError:
        in_utc = None
    if in_utc is None or not EARLIEST_PUBLISHED <= in_utc < LATEST_PUBLISHED:
        raise RowError(
            f"Date {value.isoformat()[:40]!r} is outside the years {EARLIEST_PUBLISHED.year}-{LATEST_PUBLISHED.year - 1} "
            "(a typo in the year?)."
        )
    return in_utc


def parse_published_at(raw: str) -> datetime | None:
    """ISO 8601 date or date-time, or an RFC 2822 date (feeds). Naive times are taken as UTC."""
    raw = raw.strip()
    if not raw:
        return None
    parsed: datetime | date | None
    try:
        parsed = parse_datetime(raw) or parse_date(raw)
    except ValueError:
        parsed = None
    if parsed is None:
        try:
            parsed = parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError):
            parsed = None
    if parsed is None:
        raise RowError(f"Bad date {raw[:60]!r}: use ISO 8601, e.g. 2024-05-31 or 2024-05-31T14:00:00+02:00.")
    if not isinstance(parsed, datetime):
        parsed = datetime.combine(parsed, time(0, 0), tzinfo=UTC)
    if timezone.is_naive(parsed):
        parsed = parsed.replace(tzinfo=UTC)
    return published_in_range(parsed)


def prepare_article(fields: Mapping[str, object], *, default_outlet: str = "", max_text_chars: int) -> PreparedArticle:
    text = normalise_text(_as_text(fields, "text"))
    if not text:
        raise RowError("The article has no text.")
    if len(text) > max_text_chars:
        raise RowError(f"The text has {len(text)} characters; the limit is {max_text_chars}.")
    values = {name: " ".join(_as_text(fields, name).split()) for name in ("title", "author", "outlet")}
    values["outlet"] = values["outlet"] or " ".join(default_outlet.split())
    for name, limit in MAX_LENGTHS.items():
        values[name] = values[name][:limit]
    url = _as_text(fields, "url").strip()
    if url:
        if len(url) > MAX_URL_LENGTH:
            raise RowError(f"The url is longer than {MAX_URL_LENGTH} characters.")
        try:
            _validate_url(url)
        except ValidationError:
            raise RowError(f"Bad url {url[:80]!r}.") from None
    published_at = parse_published_at(_as_text(fields, "published_at"))
    metadata = {key: value for key, value in fields.items() if key not in KNOWN_FIELDS}
    try:
        metadata_json = json.dumps(metadata, ensure_ascii=False, allow_nan=False)
    except (ValueError, RecursionError):
        raise RowError("The row's other fields hold numbers out of range or are nested too deep.") from None
    strings = (text, url, metadata_json, *values.values())
    # PostgreSQL text cannot hold NUL, and lone surrogates (legal in JSON) are not UTF-8.
    if any("\x00" in value for value in strings) or "\\u0000" in metadata_json:
        raise RowError("The row contains NUL characters (binary data?).")
    try:
        for value in strings:
            value.encode("utf-8")
    except UnicodeEncodeError:
        raise RowError("Not valid UTF-8 text (lone surrogate).") from None
    return PreparedArticle(
        text=text,
        content_hash=content_hash(text),
        title=values["title"],
        url=url,
        author=values["author"],
        outlet=values["outlet"],
        published_at=published_at,
        metadata_json=metadata_json,
    )
