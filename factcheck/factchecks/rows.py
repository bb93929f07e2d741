"""Validate one raw record of each layout into the exact values a library row stores. Pure."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import UTC, date, datetime
from typing import Protocol

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from factcheck.articles.rows import RowError, parse_published_at, published_in_range
from factcheck.factchecks.models import FactCheckImport
from factcheck.factchecks.ratings import scale_from_numbers, scale_from_words

Layout = FactCheckImport.Layout

CLAIM_MAX_CHARS = 10_000
SUMMARY_MAX_CHARS = 5_000
MAX_LENGTHS = {"title": 500, "rating_text": 200, "publisher": 200, "speaker": 300, "external_id": 500}
URL_MAX_CHARS = 2000
# Who published the checks of a layout that names no publisher (--publisher overrides).
LAYOUT_PUBLISHERS = {Layout.LIAR: "PolitiFact", Layout.SNOPES: "Snopes"}
_validate_url = URLValidator(schemes=["http", "https"])


@dataclass(frozen=True)
class PreparedFactCheck:
    publisher: str
    external_id: str
    claim: str
    title: str = ""
    summary: str = ""
    rating_text: str = ""
    rating_value: int | None = None
    url: str = ""
    published_on: date | None = None
    speaker: str = ""
    metadata: dict[str, object] = field(default_factory=dict)

    def as_json(self) -> str:
        # Shallow on purpose: dataclasses.asdict deep-copies, and cost most of an import's time.
        values = {item.name: getattr(self, item.name) for item in fields(self)}
        values["published_on"] = self.published_on.isoformat() if self.published_on else None
        return json.dumps(values, sort_keys=True, ensure_ascii=False)

    @property
    def content_hash(self) -> str:
        """What a re-import compares: the same record again hashes the same."""
        return hashlib.sha256(self.as_json().encode()).hexdigest()


def _line(value: object) -> str:
    """One line of text: whitespace collapsed. Numbers are text too; anything else is refused."""
    if value is None:
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise RowError(f"Expected text, got {type(value).__name__}.")
    return " ".join(value.split())


def _date(raw: object) -> date | None:
    text = _line(raw)
    if not text:
        return None
    for layout in ("%d %B %Y", "%B %d, %Y", "%d %b %Y", "%b %d, %Y"):  # Snopes writes "26 May 2015"
        try:
            day = datetime.strptime(text, layout).replace(tzinfo=UTC)
        except ValueError:
            continue
        return published_in_range(day).date()
    parsed = parse_published_at(text)
    return parsed.date() if parsed else None


def _url(raw: object) -> str:
    url = _line(raw)
    if not url:
        return ""
    if len(url) > URL_MAX_CHARS:
        raise RowError(f"The url is longer than {URL_MAX_CHARS} characters.")
    try:
        _validate_url(url)
    except ValidationError:
        raise RowError(f"Bad url {url[:80]!r}.") from None
    return url


def _checked(prepared: PreparedFactCheck) -> PreparedFactCheck:
    if not prepared.claim:
        raise RowError("The fact-check has no claim.")
    if len(prepared.claim) > CLAIM_MAX_CHARS:
        raise RowError(f"The claim has {len(prepared.claim)} characters; the limit is {CLAIM_MAX_CHARS}.")
    if not prepared.publisher:
        raise RowError("No publisher: the record names none; give one (--publisher, or the form's publisher).")
    if not prepared.external_id:
        raise RowError("No id: the record needs one (a url or @id) so that importing it again finds it.")
    for name, limit in MAX_LENGTHS.items():
        if len(getattr(prepared, name)) > limit:
            raise RowError(f"The {name.replace('_', ' ')} is longer than {limit} characters.")
    text = prepared.as_json()
    # PostgreSQL text cannot hold NUL, and lone surrogates (legal in JSON) are not UTF-8.
    if "\x00" in text or "\\u0000" in text:
        raise RowError("The record contains NUL characters (binary data?).")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise RowError("Not valid UTF-8 text (lone surrogate).") from None
    return prepared


def _speaker_from_slug(slug: str) -> str:
    # LIAR names speakers by PolitiFact's url slug: "dwayne-bohac" is Dwayne Bohac.
    return " ".join(part.capitalize() for part in slug.replace("_", "-").split("-") if part)


def prepare_liar(fields: Mapping[str, object], *, publisher: str) -> PreparedFactCheck:
    label = _line(fields.get("label"))
    rating_value = scale_from_words(label)
    if rating_value is None:
        raise RowError(f"Unknown LIAR rating {label[:40]!r}: expected pants-fire, false, barely-true, half-true, mostly-true or true.")
    metadata: dict[str, object] = {
        name: _line(fields.get(name))
        for name in ("speaker_job", "state", "party", "context")
        if _line(fields.get(name))
    }
    subjects = [subject for subject in _line(fields.get("subjects")).split(",") if subject]
    if subjects:
        metadata["subjects"] = subjects
    return _checked(
        PreparedFactCheck(
            publisher=publisher or LAYOUT_PUBLISHERS[Layout.LIAR],
            external_id=_line(fields.get("id")),
            claim=_line(fields.get("statement")),
            rating_text=label,
            rating_value=rating_value,
            speaker=_speaker_from_slug(_line(fields.get("speaker"))),
            metadata=dict(metadata),
        )
    )


def prepare_snopes(fields: Mapping[str, object], *, publisher: str) -> PreparedFactCheck:
    metadata: dict[str, object] = {}
    if author := _line(fields.get("author")):
        metadata["author"] = author
    # The crawl that made this layout put article text into a few rows' date: the fact-check
    # itself is sound, so it is kept without a date and the raw value kept beside it.
    try:
        published_on = _date(fields.get("date"))
    except RowError:
        published_on = None
        metadata["date_unparsed"] = _line(fields.get("date"))[:200]
    return _checked(
        PreparedFactCheck(
            publisher=publisher or LAYOUT_PUBLISHERS[Layout.SNOPES],
            external_id=_line(fields.get("vclaim_id")),
            claim=_line(fields.get("vclaim")),
            title=_line(fields.get("title")),
            summary=_line(fields.get("subtitle"))[:SUMMARY_MAX_CHARS],
            published_on=published_on,
            metadata=metadata,
        )
    )


def _name_of(node: object) -> str:
    """The name of a Person/Organization node, a list of them (the first), or a plain string."""
    if isinstance(node, list):
        node = node[0] if node else None
    if isinstance(node, dict):
        return _line(node.get("name"))
    return _line(node) if isinstance(node, str) else ""


def _is_type(node: Mapping[str, object], name: str) -> bool:
    kind = node.get("@type")
    return kind == name or (isinstance(kind, list) and name in kind)


def prepare_claimreview(fields: Mapping[str, object], *, publisher: str) -> PreparedFactCheck:
    node: Mapping[str, object] = fields
    item = node.get("item")
    if _is_type(node, "ListItem") and isinstance(item, dict):
        node = item
    if not _is_type(node, "ClaimReview"):
        raise RowError(f"Not a ClaimReview (@type {node.get('@type')!r}).")
    rating = node.get("reviewRating")
    rating = rating if isinstance(rating, dict) else {}
    rating_text = _line(rating.get("alternateName")) or _line(rating.get("name"))
    rating_value = scale_from_numbers(rating.get("ratingValue"), rating.get("bestRating"), rating.get("worstRating"))
    if rating_value is None:
        rating_value = scale_from_words(rating_text)
    url = _url(node.get("url"))
    node_id = _line(node.get("@id"))
    item = node.get("itemReviewed")
    item = item if isinstance(item, dict) else {}
    return _checked(
        PreparedFactCheck(
            publisher=_name_of(node.get("author")) or _name_of(node.get("publisher")) or publisher,
            external_id=url or node_id,
            claim=_line(node.get("claimReviewed")),
            title=_line(node.get("headline"))[: MAX_LENGTHS["title"]],
            summary=" ".join(str(node.get("reviewBody") or "").split())[:SUMMARY_MAX_CHARS] if isinstance(node.get("reviewBody"), str) else "",
            rating_text=rating_text[: MAX_LENGTHS["rating_text"]],
            rating_value=rating_value,
            url=url,
            published_on=_date(node.get("datePublished")),
            speaker=_name_of(item.get("author"))[: MAX_LENGTHS["speaker"]],
        )
    )


class Preparer(Protocol):
    def __call__(self, fields: Mapping[str, object], *, publisher: str) -> PreparedFactCheck: ...


# Keyed by the layout's value: an import stores it as a plain string.
PREPARERS: dict[str, Preparer] = {
    Layout.LIAR: prepare_liar,
    Layout.SNOPES: prepare_snopes,
    Layout.CLAIMREVIEW: prepare_claimreview,
    Layout.CLAIMREVIEW_LINES: prepare_claimreview,
}


def prepare_factcheck(fields: Mapping[str, object], *, layout: str, publisher: str = "") -> PreparedFactCheck:
    return PREPARERS[layout](fields, publisher=" ".join(publisher.split()))
