"""The library's matching index kept between runs (pipeline.match_library): built once per
library state, used again while the library is unchanged, built again when it changes (an
import, an approval) or when what is kept is damaged or another library's; the stored bytes
give the same matches as a fresh build."""

from __future__ import annotations

from pathlib import Path

import pytest

from factcheck.factchecks.models import MatchIndexCache
from factcheck.factchecks.services import factchecks_import_file
from factcheck.runs.services import run_create
from factcheck.runs.spark import database_url_for_job
from pipeline import db
from pipeline.match_library import prepare_library, prepared_from_rows
from pipeline.nlp.matching import IndexFormatError, MatchConfig, MatchIndex, library_key
from pipeline.run_store import InMemoryRun
from tests.pipeline.test_matching import LIBRARY, seed_sentences
from tests.reports.helpers import claim_in_article, publish

# The candidates the job re-ranks by default (FACTCHECK_MATCH_CANDIDATES).
MATCH_CANDIDATES = 20

GERM = "Hand dryers in public toilets spread more germs than paper towels, a study found."
GERM_CHECK = {"id": "germs", "claim": "Hand dryers spread more germs than paper towels do.", "date": "2024-03-01"}
UGLY = [
    "", "   ", "x", "the of and", "Ünïcode ΣΑΣ, naïve\u00a0café  \t tabs\nnew line", "ab abc abcd abcde", "https://t.co/x #HashTag @who 1,500",
    "ΟΔΟΣ ΣΟΦΟΣ", "İstanbul", "a\x1cb\x85c", "repeat repeat repeat repeat",
]


def store() -> InMemoryRun:
    return InMemoryRun(articles=[])


def test_an_index_is_built_once_per_library_and_kept() -> None:
    run = store()
    first = prepare_library(run, LIBRARY, MATCH_CANDIDATES)
    assert first.built and list(run.match_indexes) == [first.key] and run.match_indexes[first.key] == first.data
    again = prepare_library(run, LIBRARY, MATCH_CANDIDATES)
    assert not again.built and again.key == first.key and again.data == first.data


def test_a_new_entry_is_a_new_index_that_matches_it() -> None:
    run = store()
    before = prepare_library(run, LIBRARY, MATCH_CANDIDATES)
    assert "germs" not in [entry for entry, _ in before.index().match([GERM], 5)[0]]
    after = prepare_library(run, [*LIBRARY, GERM_CHECK], MATCH_CANDIDATES)
    assert after.built and after.key != before.key
    assert after.index().match([GERM], 5)[0][0][0] == "germs"
    # Any change to a matched field is a new library, and so is the order; a field the index
    # does not read (the rating) is not.
    edited = [{**LIBRARY[0], "claim": LIBRARY[0]["claim"] + " Really."}, *LIBRARY[1:]]
    keys = {library_key(LIBRARY), library_key(edited), library_key(LIBRARY[::-1]), library_key(LIBRARY[1:])}
    assert len(keys) == 4
    assert library_key([{**LIBRARY[0], "rating": "Pants on fire"}, *LIBRARY[1:]]) == library_key(LIBRARY)


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[:-1] + bytes([data[-1] ^ 1]),  # a flipped bit
        lambda data: data[: len(data) // 2],  # cut short
        lambda data: b"",
        lambda data: b"not an index at all",
    ],
)
def test_a_damaged_kept_index_is_built_again_not_trusted(damage) -> None:  # type: ignore[no-untyped-def]
    run = store()
    good = prepare_library(run, LIBRARY, MATCH_CANDIDATES)
    run.match_indexes[good.key] = damage(good.data)
    with pytest.raises(IndexFormatError):
        MatchIndex.from_bytes(run.match_indexes[good.key], key=good.key)
    rebuilt = prepare_library(run, LIBRARY, MATCH_CANDIDATES)
    assert rebuilt.built and rebuilt.data == good.data and run.match_indexes[good.key] == good.data


def test_another_librarys_index_under_the_key_is_built_again() -> None:
    run = store()
    key = library_key(LIBRARY, config=MatchConfig(candidates=MATCH_CANDIDATES))
    stale = prepared_from_rows(LIBRARY[:3], MATCH_CANDIDATES)
    run.match_indexes[key] = stale.data  # intact bytes, but built for LIBRARY[:3]
    with pytest.raises(IndexFormatError, match="another key"):
        MatchIndex.from_bytes(stale.data, key=key)
    rebuilt = prepare_library(run, LIBRARY, MATCH_CANDIDATES)
    assert rebuilt.built and rebuilt.key == key and rebuilt.index().ids == [entry["id"] for entry in LIBRARY]
    with pytest.raises(IndexFormatError, match="k1"):
        MatchIndex.from_bytes(rebuilt.data, key=key, config=MatchConfig(k1=1.2))


def test_the_stored_index_matches_exactly_as_a_fresh_build() -> None:
    texts = [*seed_sentences(), *UGLY]
    fresh = MatchIndex.build(LIBRARY, config=MatchConfig(candidates=MATCH_CANDIDATES))
    stored = prepared_from_rows(LIBRARY, MATCH_CANDIDATES).index()
    assert stored.match(texts, 5) == fresh.match(texts, 5) and any(fresh.match(texts, 5))
    assert stored.doc_vectors.tobytes() == fresh.doc_vectors.tobytes()
    assert (stored.char_docs != fresh.char_docs).nnz == 0 and stored.vocabulary == fresh.vocabulary


# --- Kept in PostgreSQL, invalidated by an import and by an approval ------------------------------


@pytest.mark.django_db(transaction=True)
def test_postgres_keeps_the_index_until_an_import_or_an_approval_changes_the_library(tmp_path: Path, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    first_file = tmp_path / "first.tsv"
    first_file.write_text("1.json\tfalse\tThe moon landing was staged in a film studio.\tspace\tsomeone\t\t\tnone\t0\t0\t0\t0\t1\t\n", encoding="utf-8")
    factchecks_import_file(path=first_file)
    claim = claim_in_article(sentence="Wind turbines kill more birds than cats, campaigners claim.")
    store = db.PostgresRun(database_url_for_job(), run_create(article_ids=[claim.article_id], created_by=reviewer).pk)

    first = prepare_library(store, store.read_library(), MATCH_CANDIDATES)
    assert first.built and list(MatchIndexCache.objects.values_list("key", flat=True)) == [first.key]
    assert not prepare_library(store, store.read_library(), MATCH_CANDIDATES).built

    second_file = tmp_path / "second.tsv"
    second_file.write_text(
        "2.json\ttrue\tHand dryers spread more germs than paper towels do.\thealth\tsomeone\t\t\tnone\t0\t0\t0\t0\t1\t\n", encoding="utf-8"
    )
    factchecks_import_file(path=second_file)
    imported = prepare_library(store, store.read_library(), MATCH_CANDIDATES)
    assert imported.built and imported.key != first.key
    germs = [entry["id"] for entry in store.read_library() if "germs" in entry["claim"]]
    assert imported.index().match([GERM], 1)[0][0][0] == germs[0]

    publish(claim, author=reviewer, approver=editor, headline="No, cats kill far more birds")
    approved = prepare_library(store, store.read_library(), MATCH_CANDIDATES)
    assert approved.built and approved.key not in (first.key, imported.key)
    desk = [entry["id"] for entry in store.read_library() if entry.get("own_claim_key") == claim.claim_key]
    assert approved.own == {desk[0]: claim.claim_key}
    assert approved.index().match(["Wind turbines kill more birds than cats."], 1)[0][0][0] == desk[0]
    assert set(MatchIndexCache.objects.values_list("key", flat=True)) == {imported.key, approved.key}  # the newest two stay

    MatchIndexCache.objects.filter(key=approved.key).update(data=b"garbage")
    rebuilt = prepare_library(store, store.read_library(), MATCH_CANDIDATES)
    assert rebuilt.built and bytes(MatchIndexCache.objects.get(key=approved.key).data) == rebuilt.data == approved.data
