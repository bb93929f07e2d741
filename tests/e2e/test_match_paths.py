"""One configuration, one answer: a claim gets the same stored matches whether the Spark job
found them (a run over its article, the library already there) or the web app's re-match of
the queue did (the library added after the run). Both read FACTCHECK_MATCH_TOP and
FACTCHECK_MATCH_CANDIDATES, set here to values other than their defaults so that a path
still using its own numbers would show; both date a claim by its article's publication day.

The real thing: spark-submit as the worker launches it (factcheck.runs.tasks.run_pipeline, in
this process), and the real matching engine in the task.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime, timedelta

import pytest
from django.utils import timezone

from factcheck.articles.seeds import seed_articles
from factcheck.articles.services import articles_import
from factcheck.factchecks import services
from factcheck.factchecks.matching import match_claims_against
from factcheck.factchecks.models import ClaimMatch, FactCheck
from factcheck.runs import tasks
from factcheck.runs.models import PipelineRun
from tests.pipeline.test_matching import LIBRARY

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# Dates near and far from the articles', so the dated re-ranker and the day's UTC edge count.
LIBRARY_DATES = [date(2025, 6, 3), date(2025, 6, 1), None, date(2019, 1, 5), date(2025, 5, 28), None, date(2024, 2, 2)]
ARTICLE_DATES = [datetime(2025, 6, 2, 23, 30, tzinfo=UTC), datetime(2025, 6, 4, 9, tzinfo=UTC), None]


def stored_matches() -> set[tuple[int, int, float, int]]:
    return {(m.claim_id, m.factcheck_id, round(m.score, 6), m.rank) for m in ClaimMatch.objects.all()}


def test_the_job_and_the_web_rematch_store_the_same_matches(settings) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_MATCH_TOP, settings.FACTCHECK_MATCH_CANDIDATES, settings.FACTCHECK_MATCH_MIN_SCORE = 1, 1, 0.005
    for entry, published_on in zip(LIBRARY, LIBRARY_DATES, strict=True):
        FactCheck.objects.create(
            claim=entry["claim"], title=entry.get("title", ""), summary=entry.get("summary", ""), rating_text=entry.get("rating", ""),
            publisher="Snopes", external_id=entry["id"], published_on=published_on,
        )
    articles = [dataclasses.replace(article, published_at=when) for article, when in zip(seed_articles(), ARTICLE_DATES, strict=True)]
    run = articles_import(source="seeds", articles=articles).run
    assert run is not None

    tasks.run_pipeline.apply(args=(run.pk,))  # spark-submit, with the settings as its arguments
    run.refresh_from_db()
    assert run.status == PipelineRun.Status.SUCCEEDED, f"{run.error}\n{run.log_tail}"
    from_job = stored_matches()
    ranks: dict[int, list[int]] = {}
    for claim_id, _, _, rank in from_job:
        ranks.setdefault(claim_id, []).append(rank)
    # The job kept FACTCHECK_MATCH_TOP per claim, not a number of its own.
    assert from_job and max(len(kept) for kept in ranks.values()) == 1
    assert all(sorted(kept) == list(range(1, len(kept) + 1)) for kept in ranks.values())
    assert min(score for _, _, score, _ in from_job) >= 0.005

    # The same library entering after the claims were stored: the web app's path.
    ClaimMatch.objects.all().delete()
    FactCheck.objects.update(match_pending_since=timezone.now())
    services.factchecks_match_new(factcheck_ids=list(FactCheck.objects.values_list("id", flat=True)))
    assert stored_matches() == from_job

    # What the comparison can tell apart on this input: another candidate count, or claims
    # dated a day later (a local-time day instead of UTC), give other matches.
    claims = [claim for claim in services._queued_claims() if claim.id in ranks]
    entries = services.library_entries()
    assert claims and all(claim.date in {date(2025, 6, 2), date(2025, 6, 4), None} for claim in claims)
    as_stored = match_claims_against(entries, claims, top=1, candidates=1, min_score=0.005)
    assert {(r.claim_id, r.factcheck_id, round(r.score, 6), r.rank) for r in as_stored} == from_job
    assert match_claims_against(entries, claims, top=1, candidates=20, min_score=0.005) != as_stored
    # The floor: every queued claim has a best candidate, but only some score 0.005 or more.
    queued = list(services._queued_claims())
    unfloored = match_claims_against(entries, queued, top=1, candidates=1, min_score=0.0)
    assert len(unfloored) > len(match_claims_against(entries, queued, top=1, candidates=1, min_score=0.005))
    day_later = [dataclasses.replace(claim, date=claim.date + timedelta(days=1)) if claim.date else claim for claim in claims]
    assert match_claims_against(entries, day_later, top=1, candidates=1, min_score=0.005) != as_stored
    print(f"\n{len(from_job)} matches over {len(ranks)} claims, identical from the job and from the web re-match")
