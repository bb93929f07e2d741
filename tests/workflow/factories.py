"""Small builders for workflow tests: a stored article with one claim in it."""

from __future__ import annotations

import itertools
from typing import Any

from factcheck.articles.services import ArticleInput, article_ingest
from factcheck.claims.models import Claim

_counter = itertools.count(1)

SENTENCE = "ICE detained nearly 1,500 people in May."


def make_claim(*, outlet: str = "MassLive", sentence: str = SENTENCE, **fields: Any) -> Claim:
    n = next(_counter)
    text = f"Story {n} opens here.\n\n{sentence} Nobody disputed it."
    article, _ = article_ingest(data=ArticleInput(text=text, outlet=outlet), batch=None)
    start = text.index(sentence)
    values: dict[str, Any] = {"score": 0.8, "priority": 50.0, "claim_type": "numeric"}
    values.update(fields)
    return Claim.objects.create(
        article=article,
        claim_key=f"{n:040x}",
        sentence=sentence,
        start_offset=start,
        end_offset=start + len(sentence),
        **values,
    )
