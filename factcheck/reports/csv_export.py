"""The claims CSV: one line per appearance (a claim in one article), written as the rows
arrive from the database. Its words are the queue's: a claim is a cluster of appearances (one
of one for an appearance alone), so `appearance_id` is the row's own id, `claim_key` names its
claim, and `claim_appearances` / `claim_outlets` count that claim's appearances and outlets.

Spreadsheets run a cell that starts with =, +, - or @ as a formula (and strip a leading tab
or carriage return first), so such a text cell gets a leading apostrophe: the cell shows
the text, the apostrophe tells the reader it was escaped. Numbers are written as numbers.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any

from factcheck.claims.models import Claim, Verdict
from factcheck.claims.quantities import format_quantities

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
BOM = "\ufeff"


def neutralise(value: str) -> str:
    return "'" + value if value.startswith(FORMULA_PREFIXES) else value


_LABELS = {
    choices: {value: str(label) for value, label in choices.choices}
    for choices in (Claim.Status, Claim.Type, Verdict.Rating, Verdict.Status)
}


def _label(choices: type[Claim.Status] | type[Claim.Type] | type[Verdict.Rating] | type[Verdict.Status], value: str | None) -> str:
    if not value:
        return ""
    return _LABELS[choices].get(value, value)


def _when(value: datetime | None) -> str:
    return value.isoformat(timespec="seconds") if value else ""


# (header, how to read it from a row); the order is the file's column order.
COLUMNS: list[tuple[str, Callable[[dict[str, Any]], Any]]] = [
    ("appearance_id", lambda r: r["id"]),
    ("claim", lambda r: r["sentence"]),
    ("claim_type", lambda r: _label(Claim.Type, r["claim_type"])),
    ("all_types", lambda r: ", ".join(r["claim_types"] or [])),
    ("quantities", lambda r: "; ".join(format_quantities(r["quantities"]))),
    ("checkworthiness", lambda r: round(r["score"], 4)),
    ("priority", lambda r: round(r["total"], 4)),
    ("speaker", lambda r: r["speaker"]),
    ("speaker_title", lambda r: r["speaker_title"]),
    ("attribution", lambda r: r["attribution"]),
    ("article_id", lambda r: r["article_id"]),
    ("article", lambda r: " ".join((r["article_title"] or "").split())),
    ("article_url", lambda r: r["article_url"]),
    ("article_published_at", lambda r: _when(r["article_published_at"])),
    ("outlet", lambda r: r["outlet"] or ""),
    ("claim_key", lambda r: r["cluster_key"]),
    ("claim_appearances", lambda r: r["cluster_size"] if r["cluster_size"] is not None else 1),
    ("claim_outlets", lambda r: r["cluster_outlets"] if r["cluster_outlets"] is not None else 1),
    ("status", lambda r: _label(Claim.Status, r["status"])),
    ("dismiss_reason", lambda r: r["dismiss_reason"]),
    ("tags", lambda r: ", ".join(r["tags"] or [])),
    ("assignee", lambda r: r["assignee_username"] or ""),
    ("verdict_revision", lambda r: r["verdict_revision"] if r["verdict_revision"] is not None else ""),
    ("verdict_status", lambda r: _label(Verdict.Status, r["verdict_status"])),
    ("verdict_rating", lambda r: _label(Verdict.Rating, r["verdict_rating"])),
    ("verdict_headline", lambda r: r["verdict_headline"] or ""),
    ("verdict_claim_reviewed", lambda r: r["verdict_claim_reviewed"] or ""),
    ("verdict_explanation", lambda r: r["verdict_explanation"] or ""),
    ("verdict_author", lambda r: r["verdict_author"] or ""),
    ("published_revision", lambda r: r["published_revision"] if r["published_revision"] is not None else ""),
    ("published_rating", lambda r: _label(Verdict.Rating, r["published_rating"])),
    ("approved_by", lambda r: r["published_approved_by"] or ""),
    ("approved_at", lambda r: _when(r["published_approved_at"])),
]
# Who published the verdict, added per line: a demo organisation says so in every export.
HEADER = [*(name for name, _ in COLUMNS), "published_by"]


class _Line:
    """A file-like object whose write() hands back what csv.writer wrote."""

    def write(self, value: str) -> str:
        return value


def csv_lines(rows: Iterable[dict[str, Any]], *, bom: bool = False, publisher: str = "") -> Iterator[str]:
    """The header, then one CSV line per row, each produced only when asked for. `publisher`:
    the organisation as a published verdict's line names it ("... (demo organisation)" while
    it is a demo)."""
    writer = csv.writer(_Line())
    header = writer.writerow(HEADER)
    yield (BOM + header) if bom else header
    for row in rows:
        cells = [read(row) for _, read in COLUMNS]
        cells.append(publisher if row["published_revision"] is not None else "")
        yield writer.writerow([neutralise(cell) if isinstance(cell, str) else cell for cell in cells])
