"""Single-process extraction over files: the command line and the Python baseline benchmark.

Same functions as the Spark job (pipeline.extract, pipeline.nlp.*), no JVM.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pipeline.extract import ArticleText, ClaimRecord, extract_articles
from pipeline.nlp.checkworthiness import Scorer
from pipeline.nlp.clustering import cluster_records, cluster_tokens
from pipeline.text import content_hash, normalise_text

# Articles scored per call, as the Spark job scores one Arrow batch per call.
ARTICLES_PER_BATCH = 200


@dataclass(frozen=True)
class SourceArticle:
    source: str  # "file.txt" or "file.jsonl:12"
    text: str
    outlet: str = ""
    author: str = ""
    published_at: str = ""


@dataclass
class ExtractedClaim:
    article: SourceArticle
    claim: ClaimRecord


def read_articles(paths: Sequence[str | Path]) -> Iterator[SourceArticle]:
    """.txt/.md files are one article each; .jsonl files hold one article per line
    (keys: text, and optionally outlet, author, published_at)."""
    for raw_path in paths:
        path = Path(raw_path)
        if path.suffix == ".jsonl":
            with open(path, encoding="utf-8") as handle:
                for number, line in enumerate(handle, start=1):
                    if not line.strip():
                        continue
                    record = json.loads(line)
                    yield SourceArticle(
                        source=f"{path}:{number}",
                        text=record.get("text") or "",
                        outlet=record.get("outlet") or "",
                        author=record.get("author") or "",
                        published_at=record.get("published_at") or "",
                    )
        else:
            yield SourceArticle(source=str(path), text=path.read_text(encoding="utf-8"))


def extract(articles: Iterable[SourceArticle], scorer: Scorer, *, cluster: bool = True) -> tuple[int, int, list[ExtractedClaim]]:
    """(articles, sentences, claims) with cluster keys, in article then offset order."""
    extracted: list[ExtractedClaim] = []
    article_count = sentence_count = 0
    seen_hashes: set[str] = set()
    pending: list[tuple[SourceArticle, ArticleText]] = []

    def flush() -> None:
        nonlocal sentence_count
        counts, claims = extract_articles([text for _, text in pending], scorer)
        sentence_count += sum(counts)
        extracted.extend(ExtractedClaim(article=pending[index][0], claim=claim) for index, claim in claims)
        pending.clear()

    for article in articles:
        text = normalise_text(article.text)
        digest = content_hash(text)
        # The same text is one article, as in the database.
        if not text or digest in seen_hashes:
            continue
        seen_hashes.add(digest)
        article_count += 1
        pending.append((article, ArticleText(text, digest, article.outlet, article.author)))
        if len(pending) >= ARTICLES_PER_BATCH:
            flush()
    if pending:
        flush()
    if cluster:
        keys = cluster_records({item.claim.claim_key: cluster_tokens(item.claim.sentence, item.claim.quantities) for item in extracted})
        for item in extracted:
            item.claim.cluster_key = keys[item.claim.claim_key]
    return article_count, sentence_count, extracted


def claim_json(item: ExtractedClaim) -> str:
    claim = item.claim
    return json.dumps(
        {
            "article": item.article.source,
            "sentence": claim.sentence,
            "start": claim.start,
            "end": claim.end,
            "score": claim.score,
            "type": claim.claim_type,
            "types": claim.claim_types,
            "quantities": claim.quantities,
            "speaker": claim.speaker,
            "speaker_title": claim.speaker_title,
            "attribution": claim.attribution,
            "claim_key": claim.claim_key,
            "cluster_id": claim.cluster_key,
            "signals": claim.signals,
            "context": claim.context,
        },
        ensure_ascii=False,
    )
