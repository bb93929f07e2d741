"""The seed articles in seeds/: three outlets, one story, the first data every user sees."""

from __future__ import annotations

import csv
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.dateparse import parse_datetime

from factcheck.articles.services import ArticleInput

SEEDS_DIR = Path(settings.BASE_DIR) / "seeds"
METADATA_FILE = "articles.csv"


def _parse_date(raw: str) -> datetime | None:
    raw = raw.strip()
    if not raw:
        return None
    parsed = parse_datetime(raw if "T" in raw or " " in raw else f"{raw}T12:00:00+00:00")
    if parsed is None:
        raise ImproperlyConfigured(f"seeds/{METADATA_FILE}: bad date {raw!r}")
    return parsed


def seed_articles(directory: Path = SEEDS_DIR) -> list[ArticleInput]:
    with open(directory / METADATA_FILE, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    articles = []
    for row in rows:
        path = directory / row["file"]
        articles.append(
            ArticleInput(
                text=path.read_text(encoding="utf-8"),
                title=row.get("title", ""),
                url=row.get("url", ""),
                outlet=row.get("outlet", ""),
                author=row.get("author", ""),
                published_at=_parse_date(row.get("published_at", "")),
                metadata={"seed_file": row["file"], "note": row.get("note", "")},
            )
        )
    return articles
