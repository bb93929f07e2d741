"""Matching claims against the library: the engine call, new fact-checks matched against the
queue, the desk's approved verdicts entering the library, and the queue's "checked before"."""

from __future__ import annotations

import importlib.machinery
import sys
import types
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import numpy as np
import pytest
import scipy.sparse as sp
from django.utils import timezone

from factcheck import queueing
from factcheck.claims.models import Claim, Verdict
from factcheck.factchecks import services
from factcheck.factchecks.library import desk_external_id, factcheck_record_verdict
from factcheck.factchecks.matching import ClaimText, LibraryEntry, MatchRow, match_claims_against
from factcheck.factchecks.models import ClaimMatch, FactCheck
from factcheck.factchecks.selectors import CheckedBefore, claims_checked_before
from tests.reports.helpers import claim_in_article, publish

ENGINE = "pipeline.nlp.matching"


@dataclass
class StandInConfig:
    candidates: int = 50


class WordOverlapIndex:
    """A stand-in for pipeline.nlp.matching.MatchIndex with its API: the share of a claim's
    words that an entry's claim holds, best first, ties by id; no candidate without overlap.
    Records what it was built and asked with (the real engine: tests/pipeline, tests/e2e)."""

    built: list[list[Mapping[str, str]]] = []
    configs: list[StandInConfig] = []
    asked: list[tuple[int, list[date | None]]] = []
    floors: list[float] = []

    def __init__(self, entries: list[Mapping[str, str]]) -> None:
        self.entries = entries
        # The parts of the engine's API that match-new selects claims with (candidates: the
        # entries sharing a word, best first), so the stand-in selects as the engine does.
        self.ids = [entry["id"] for entry in entries]
        self.config = StandInConfig()
        self.vocabulary = sorted({word for entry in entries for word in _words(entry["claim"])})
        columns = {word: n for n, word in enumerate(self.vocabulary)}
        self.combined = sp.csr_matrix(
            ([1.0] * sum(len(_words(e["claim"])) for e in entries),
             ([columns[w] for e in entries for w in _words(e["claim"])], [d for d, e in enumerate(entries) for _ in _words(e["claim"])])),
            shape=(len(self.vocabulary), len(entries)),
        )

    def query_terms(self, normalised: Sequence[str]) -> sp.csr_matrix:
        columns = {word: n for n, word in enumerate(self.vocabulary)}
        rows = [(q, columns[w]) for q, text in enumerate(normalised) for w in _words(text) if w in columns]
        return sp.csr_matrix(([1.0] * len(rows), ([r[0] for r in rows], [r[1] for r in rows])), shape=(len(normalised), len(self.vocabulary)))

    def candidates(self, query: sp.csr_matrix, limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        scores = (query @ self.combined).tocoo()
        order = np.lexsort((scores.col, -scores.data, scores.row))
        return scores.row[order].astype(np.int64), scores.col[order].astype(np.int64), scores.data[order]

    @classmethod
    def build(cls, entries: Iterable[Mapping[str, str]], artifact: object = None, config: StandInConfig | None = None) -> WordOverlapIndex:
        index = cls(list(entries))
        cls.built.append(index.entries)
        cls.configs.append(config or StandInConfig())
        return index

    def match(
        self, texts: Sequence[str], top: int, dates: Sequence[date | None] | None = None, min_score: float = 0.0
    ) -> list[list[tuple[str, float]]]:
        self.asked.append((top, list(dates or [])))
        self.floors.append(min_score)
        results = []
        for text in texts:
            words = set(text.lower().rstrip(".").split())
            scored = [(len(words & set(entry["claim"].lower().rstrip(".").split())) / len(words), entry["id"]) for entry in self.entries]
            ranked = sorted((item for item in scored if item[0] > 0), key=lambda item: (-item[0], int(item[1])))
            results.append([(entry_id, score) for score, entry_id in ranked[:top] if score >= min_score])
        return results


def _words(text: str) -> set[str]:
    return set(text.lower().rstrip(".").split())


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch) -> type[WordOverlapIndex]:
    module = types.ModuleType(ENGINE)
    module.__spec__ = importlib.machinery.ModuleSpec(ENGINE, None)
    module.MatchIndex = WordOverlapIndex  # type: ignore[attr-defined]
    module.MatchConfig = StandInConfig  # type: ignore[attr-defined]
    module.normalise = str  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, ENGINE, module)
    WordOverlapIndex.built, WordOverlapIndex.configs, WordOverlapIndex.asked, WordOverlapIndex.floors = [], [], [], []
    return WordOverlapIndex


def factcheck(claim: str, *, n: int, rating: str = "false", value: int | None = 1, publisher: str = "PolitiFact") -> FactCheck:
    return FactCheck.objects.create(
        claim=claim, publisher=publisher, external_id=f"{n}.json", rating_text=rating, rating_value=value, published_on=date(2016, 3, n)
    )


# --- The engine call (pure) ----------------------------------------------------------------


def test_match_claims_against_ranks_the_best_and_never_a_claims_own_verdict(engine: type[WordOverlapIndex]) -> None:
    library = [
        LibraryEntry(id=1, claim="ICE detained nearly 1,500 people in May.", own_claim_id=7),
        LibraryEntry(id=2, claim="ICE detained 1,500 people"),
        LibraryEntry(id=3, claim="People in May"),
        LibraryEntry(id=4, claim="Unrelated words entirely"),
    ]
    claims = [ClaimText(id=7, text="ICE detained nearly 1,500 people in May."), ClaimText(id=8, text="ICE detained nearly 1,500 people in May.")]
    rows = match_claims_against(library, claims, top=2, candidates=7, min_score=0.0)
    assert rows == [
        MatchRow(claim_id=7, factcheck_id=2, score=4 / 7, rank=1),
        MatchRow(claim_id=7, factcheck_id=3, score=3 / 7, rank=2),
        MatchRow(claim_id=8, factcheck_id=1, score=1.0, rank=1),
        MatchRow(claim_id=8, factcheck_id=2, score=4 / 7, rank=2),
    ]
    assert engine.built[0][0] == {
        "id": "1", "claim": "ICE detained nearly 1,500 people in May.", "title": "", "summary": "", "rating": "", "url": "", "date": "", "publisher": "",
    }
    # The candidates asked for reach the engine; one more match than kept (a claim's own verdict).
    assert engine.configs == [StandInConfig(candidates=7)] and engine.asked == [(3, [None, None])]


def test_without_the_engine_nothing_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, ENGINE, None)  # what find_spec reports for a missing module
    assert match_claims_against([LibraryEntry(id=1, claim="x")], [ClaimText(id=1, text="x")], top=5, candidates=20, min_score=0.0) == []


# --- New fact-checks against the queue ----------------------------------------------------


def matched_rows() -> list[tuple[int, int, int, str]]:
    return list(ClaimMatch.objects.order_by("claim_id", "rank").values_list("claim_id", "factcheck_id", "rank", "status"))


@pytest.mark.django_db
def test_new_factchecks_are_matched_against_queued_claims_idempotently(engine: type[WordOverlapIndex], settings) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_MATCH_TOP, settings.FACTCHECK_MATCH_CANDIDATES = 2, 13
    old, older = factcheck("ICE detained 1,500 people in May", n=1), factcheck("ICE detained 1,500 people", n=4)
    FactCheck.objects.update(match_pending_since=None)  # matched long ago
    late_evening = datetime(2025, 6, 2, 23, 30, tzinfo=UTC)
    queued = claim_in_article(sentence="ICE detained nearly 1,500 people in May.", status=Claim.Status.NEW, published_at=late_evening)
    dismissed = claim_in_article(sentence="ICE detained nearly 1,500 people in May.", status=Claim.Status.DISMISSED)
    elsewhere = claim_in_article(sentence="Detained 1,500 people ICE said", status=Claim.Status.CHECK)
    new = factcheck("ICE detained nearly 1,500 people in May.", n=2)
    unrelated = factcheck("The moon is made of cheese", n=3)
    assert new.match_pending_since is not None  # pending from the moment it is added

    assert services.factchecks_match_new(factcheck_ids=[new.pk, unrelated.pk, 999_999]) == 2
    # A claim whose best matches now hold a new fact-check gets its whole top list, ranked
    # afresh as the job would store it; a claim whose top list holds no new one is left alone.
    assert matched_rows() == [(queued.pk, new.pk, 1, "suggested"), (queued.pk, old.pk, 2, "suggested")]
    assert engine.built and {entry["id"] for entry in engine.built[-1]} == {str(old.pk), str(older.pk), str(new.pk), str(unrelated.pk)}
    assert not ClaimMatch.objects.filter(claim=dismissed).exists()
    # The job's settings and dates: candidates from the settings, each claim its article's UTC day.
    assert engine.configs[-1] == StandInConfig(candidates=13)
    top, dates = engine.asked[-1]
    assert top == 2 and dates[[claim.pk for claim in (queued, elsewhere)].index(queued.pk)] == date(2025, 6, 2)
    assert engine.floors[-1] == settings.FACTCHECK_MATCH_MIN_SCORE  # the job's floor too
    assert not FactCheck.objects.filter(match_pending_since__isnull=False).exists()

    before = list(ClaimMatch.objects.values())
    assert services.factchecks_match_new(factcheck_ids=[new.pk, unrelated.pk]) == 0  # no longer pending: nothing to do
    assert list(ClaimMatch.objects.values()) == before and len(engine.built) == 1


@pytest.mark.django_db
def test_a_rematch_keeps_the_reviewers_decisions_and_stores_the_same_matches(engine: type[WordOverlapIndex], reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = claim_in_article(sentence="ICE detained nearly 1,500 people in May.")
    first, second = factcheck("ICE detained nearly 1,500 people in May.", n=1), factcheck("ICE detained people", n=2)
    services.factchecks_match_new(factcheck_ids=[first.pk, second.pk])
    stored = list(ClaimMatch.objects.order_by("rank").values_list("claim_id", "factcheck_id", "rank"))
    assert stored == [(claim.pk, first.pk, 1), (claim.pk, second.pk, 2)]
    services.claim_match_decide(match=ClaimMatch.objects.get(factcheck=first), actor=reviewer, decision="rejected")
    services.claim_match_decide(match=ClaimMatch.objects.get(factcheck=second), actor=reviewer, decision="confirmed")
    decided = list(ClaimMatch.objects.order_by("id").values())

    # Both entries changed (re-imported) and matched again, twice: the decisions stand.
    FactCheck.objects.update(match_pending_since=timezone.now())
    services.factchecks_match_new(factcheck_ids=[first.pk, second.pk])
    FactCheck.objects.update(match_pending_since=timezone.now())
    services.factchecks_match_new(factcheck_ids=[first.pk, second.pk])
    assert list(ClaimMatch.objects.order_by("id").values()) == decided


@pytest.mark.django_db
def test_an_entry_changed_while_it_was_matched_stays_pending(engine: type[WordOverlapIndex], monkeypatch: pytest.MonkeyPatch) -> None:
    claim_in_article(sentence="ICE detained nearly 1,500 people in May.")
    entry = factcheck("ICE detained nearly 1,500 people in May.", n=1)
    real_entries = services.library_entries

    def changed_meanwhile() -> list[LibraryEntry]:
        FactCheck.objects.filter(pk=entry.pk).update(match_pending_since=timezone.now() + timedelta(seconds=1))
        return real_entries()

    monkeypatch.setattr(services, "library_entries", changed_meanwhile)
    services.factchecks_match_new(factcheck_ids=[entry.pk])
    entry.refresh_from_db()
    assert entry.match_pending_since is not None  # the re-import's change is matched by the next message


@pytest.mark.django_db
def test_without_the_engine_new_factchecks_stay_pending(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, ENGINE, None)
    claim_in_article(sentence="ICE detained nearly 1,500 people in May.")
    entry = factcheck("ICE detained nearly 1,500 people in May.", n=1)
    assert services.factchecks_match_new(factcheck_ids=[entry.pk]) == 0
    entry.refresh_from_db()
    assert entry.match_pending_since is not None and not ClaimMatch.objects.exists()


@pytest.mark.django_db
def test_stored_suggestions_take_new_scores_but_decisions_are_kept(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = claim_in_article(sentence="ICE detained nearly 1,500 people in May.")
    first, second = factcheck("a", n=1), factcheck("b", n=2)
    services.claim_matches_store([MatchRow(claim.pk, first.pk, 0.5, 1), MatchRow(claim.pk, second.pk, 0.4, 2)])
    confirmed = ClaimMatch.objects.get(factcheck=first)
    services.claim_match_decide(match=confirmed, actor=reviewer, decision="confirmed")

    # A deleted claim's pair is dropped, not an error; the confirmed match keeps its score.
    again = [MatchRow(claim.pk, first.pk, 0.9, 2), MatchRow(claim.pk, second.pk, 0.95, 1), MatchRow(999_999, first.pk, 1.0, 1)]
    assert services.claim_matches_store(again) == 1
    rows = {row.factcheck_id: (row.score, row.rank, row.status) for row in ClaimMatch.objects.all()}
    assert rows == {first.pk: (0.5, 1, "confirmed"), second.pk: (0.95, 1, "suggested")}


@pytest.mark.django_db
def test_checked_before_prefers_a_confirmed_match_and_ignores_rejected_ones(reviewer) -> None:  # type: ignore[no-untyped-def]
    confirmed_claim, rejected_claim, plain = (claim_in_article(sentence=f"Claim {n} said 1,500.") for n in range(3))
    best = factcheck("best", n=1, rating="half-true", value=3)
    other = factcheck("other", n=2, rating="", value=4, publisher="Snopes")
    services.claim_matches_store([
        MatchRow(confirmed_claim.pk, best.pk, 0.9, 1), MatchRow(confirmed_claim.pk, other.pk, 0.8, 2),
        MatchRow(rejected_claim.pk, best.pk, 0.9, 1),
    ])
    services.claim_match_decide(match=ClaimMatch.objects.get(claim=confirmed_claim, factcheck=other), actor=reviewer, decision="confirmed")
    services.claim_match_decide(match=ClaimMatch.objects.get(claim=rejected_claim), actor=reviewer, decision="rejected")
    assert claims_checked_before([confirmed_claim.pk, rejected_claim.pk, plain.pk]) == {
        confirmed_claim.pk: CheckedBefore("Snopes", "4 of 5", date(2016, 3, 2), confirmed=True),
    }
    assert claims_checked_before([]) == {}


# --- The desk's own verdicts ------------------------------------------------------------------


@pytest.mark.django_db
def test_an_approved_verdict_enters_the_library_once_and_follows_new_revisions(  # type: ignore[no-untyped-def]
    reviewer, editor, settings, django_capture_on_commit_callbacks, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.FACTCHECK_PUBLIC_BASE_URL = "https://desk.example.org"
    sent: list[tuple[str, tuple[object, ...]]] = []
    monkeypatch.setattr(queueing, "task_send", lambda task, *, args, queue: sent.append((task.name, tuple(args))) or True)
    claim = claim_in_article(sentence="ICE detained nearly 1,500 people in May.", speaker="Jane Doe")
    with django_capture_on_commit_callbacks(execute=True):
        verdict = publish(claim, author=reviewer, approver=editor)
    entry = FactCheck.objects.get()
    assert (entry.source, entry.publisher, entry.external_id, entry.verdict, entry.claim) == (
        FactCheck.Source.DESK, settings.FACTCHECK_ORG_NAME, desk_external_id(claim.pk), verdict, claim.sentence
    )
    assert (entry.rating_text, entry.rating_value, entry.speaker, entry.published_on) == ("Mostly false", 2, "Jane Doe", verdict.approved_at.date())
    assert entry.url == f"https://desk.example.org/factchecks/{claim.pk}/"
    assert sent == [("factcheck.factchecks.tasks.factchecks_match_new", ([entry.pk],))]  # the queue is matched against it

    stamp = entry.updated_at
    assert factcheck_record_verdict(verdict=verdict).updated_at == stamp  # the same verdict again: nothing changes

    revision = publish(claim, author=reviewer, approver=editor, rating="false", headline="No such figure")
    entry.refresh_from_db()
    assert FactCheck.objects.count() == 1
    assert (entry.verdict, entry.rating_text, entry.rating_value, entry.title) == (revision, "False", 1, "No such figure")
    assert revision.revision == 2 and Verdict.objects.filter(claim=claim).count() == 2


@pytest.mark.django_db
def test_approval_makes_an_earlier_queued_claim_checked_before(engine: type[WordOverlapIndex], reviewer, editor, settings) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_ORG_NAME = "Our desk"
    earlier = claim_in_article(sentence="ICE detained nearly 1,500 people in May, officials said.", status=Claim.Status.NEW)
    checked = claim_in_article(sentence="ICE detained nearly 1,500 people in May.")
    verdict = publish(checked, author=reviewer, approver=editor)
    entry = FactCheck.objects.get(verdict=verdict)

    services.factchecks_match_new(factcheck_ids=[entry.pk])  # what the task queued on commit runs
    assert claims_checked_before([earlier.pk, checked.pk]) == {earlier.pk: CheckedBefore("Our desk", "Mostly false", verdict.approved_at.date())}
