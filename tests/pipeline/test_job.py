"""The claim job's steps on small inline data (no database: an InMemoryRun store), each
compared whole, and the job as main() runs it (process_run), which the class-archive
warm-up runs too."""

from __future__ import annotations

import gc
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.testing import assertDataFrameEqual

from factcheck.articles.seeds import seed_articles
from pipeline.jobs import warm_classes
from pipeline.jobs.extract_claims import cycle_collection_paused, process_run
from pipeline.nlp.checkworthiness import read_artifact
from pipeline.nlp.clustering import band_keys, claim_node, cluster_tokens
from pipeline.run_store import InMemoryRun, StoredClaim
from pipeline.schemas import ARTICLE_SCHEMA, CLAIM_SCHEMA, MEMBERSHIP_SCHEMA
from pipeline.staging import CLAIM_COLUMN_NAMES
from pipeline.text import content_hash
from pipeline.transforms import band_memberships, extract_claims, stage_claims, stored_memberships
from tests.pipeline.file_run import FileRun

ARTICLES = [
    (3, "h3", "  Crime fell 12% last year, police said.  ", None, ""),
    (4, "h4", "", "Outlet", None),
    (7, "h7", "Unemployment rose to 5.1% in March, the ONS said.", "BBC News", "A. Writer"),
]
FLOOD = "“We’re definitely going to, as you’ve heard the saying, flood the zone, especially in sanctuary jurisdictions,” he explained."


def test_the_claim_columns_are_defined_once() -> None:
    assert tuple(CLAIM_SCHEMA.fieldNames()) == CLAIM_COLUMN_NAMES


def test_stage_claims_reads_every_bucket_once_and_hands_on_what_it_staged(spark: SparkSession, tmp_path: Path) -> None:
    store = FileRun(articles=ARTICLES, staged_path=str(tmp_path / "staged"))
    claims_df = stage_claims(spark, store, partitions=2, model_ref=read_artifact())
    # One action: each claim handed on was staged, once ...
    handed = sorted(row.claim_key for row in claims_df.collect())
    staged = sorted((tmp_path / "staged").read_text(encoding="utf-8").split())
    assert len(handed) == 2 and staged == handed
    # ... and they are the pure extraction's claims of the same articles, each article read once.
    assertDataFrameEqual(claims_df, extract_claims(spark.createDataFrame(ARTICLES, ARTICLE_SCHEMA), read_artifact()))


def test_a_full_disk_in_the_sink_fails_the_task(spark: SparkSession) -> None:
    class FullDisk(InMemoryRun):
        def write_claims(self, rows: Iterable[Sequence[Any]]) -> int:
            for _ in rows:
                raise OSError("No space left on device")
            return 0

    with pytest.raises(Exception, match="No space left on device"):
        stage_claims(spark, FullDisk(articles=ARTICLES), partitions=1, model_ref=read_artifact()).collect()


def test_band_memberships_are_a_row_per_claim_and_band_key(spark: SparkSession) -> None:
    key, short = "ab" * 20, "cd" * 20
    row = {name: None for name in CLAIM_COLUMN_NAMES}
    claims_df = spark.createDataFrame(
        [{**row, "claim_key": key, "bands": [5, -6]}, {**row, "claim_key": short, "bands": []}, {**row, "claim_key": "ef" * 20}],
        CLAIM_SCHEMA,
    )
    expected = spark.createDataFrame([(claim_node(key), 5, True), (claim_node(key), -6, True)], MEMBERSHIP_SCHEMA)
    assertDataFrameEqual(band_memberships(claims_df), expected)


def test_stored_memberships_come_from_the_store(spark: SparkSession) -> None:
    stored = StoredClaim("12" * 20, FLOOD, "12" * 20)
    expected = [(claim_node(stored.claim_key), band, False) for band in band_keys(cluster_tokens(FLOOD))]
    store = InMemoryRun(articles=[], stored=[stored])
    assertDataFrameEqual(stored_memberships(spark, store), spark.createDataFrame(expected, MEMBERSHIP_SCHEMA))


def test_the_job_clusters_the_seeds_quote_in_all_three_outlets_with_a_stored_claim(spark: SparkSession) -> None:
    articles = [
        (number, content_hash(article.text), article.text, article.outlet, article.author) for number, article in enumerate(seed_articles())
    ]
    # An earlier run stored the quote under a cluster whose key sorts first: the run joins it.
    stored = StoredClaim("0" * 40, FLOOD, "0" * 40)
    store = InMemoryRun(articles=articles, stored=[stored])
    run = process_run(spark, store, model=read_artifact(), partitions=2)

    claims_df = extract_claims(spark.createDataFrame(articles, ARTICLE_SCHEMA), read_artifact())
    flood = [row.claim_key for row in claims_df.collect() if "flood the zone, especially in sanctuary jurisdictions" in row.sentence]
    assert len(flood) == 3
    assert {run.clustering.assigned[key] for key in flood} == {stored.claim_key}
    assert run.clustering.remap == []
    assert store.merged == [run.clustering] and run.claims == claims_df.count() and run.sentences > run.claims
    # Each of the two tasks told the driver where its time went (pipeline.task_profile).
    assert run.timings["extract.tasks"] == 2
    assert run.timings["extract.extract"] > 0 and run.timings["extract.models"] > 0
    assert all(run.timings[f"extract.{part}"] >= 0 for part in ("read", "write", "before_tasks", "after_tasks", "idle"))


def test_the_class_archive_warm_up_runs_the_job(spark: SparkSession) -> None:
    store = warm_classes.warm_up(spark)
    [clustering] = store.merged
    # The made-up articles repeat their sentences: they cluster, and stored clusters merge into theirs.
    assert len(clustering.assigned) == 400 and clustering.remap
    assert {old for old, _ in clustering.remap} <= {claim.claim_key for claim in store.stored}


def test_the_cycle_collector_runs_again_after_the_clustering_even_when_it_fails() -> None:
    assert gc.isenabled()
    with cycle_collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), cycle_collection_paused():
        raise RuntimeError("the shuffle failed")
    assert gc.isenabled()
    # Left as it was where a caller had paused it already.
    gc.disable()
    try:
        with cycle_collection_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
