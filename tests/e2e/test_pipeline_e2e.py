"""The real path: import -> Celery worker -> spark-submit -> PostgreSQL, no stand-ins."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import override_settings

from factcheck.articles.seeds import seed_articles
from factcheck.articles.services import articles_import
from factcheck.claims.models import Claim, ClaimCluster
from factcheck.runs import spark as spark_launcher
from factcheck.runs import tasks
from factcheck.runs.models import PipelineRun
from factcheck.runs.services import run_rerun
from tests.conftest import ROOT, Worker, route_to_unconsumed_queue, wait_for_run

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CLAIM_COLUMNS = (
    "id", "claim_key", "article_id", "sentence", "start_offset", "end_offset", "score",
    "claim_type", "speaker", "updated_at", "cluster__status", "cluster__assignee_id", "cluster__version", "cluster__updated_at",
)


def claims_snapshot() -> list[tuple[object, ...]]:
    return list(Claim.objects.order_by("claim_key").values_list(*CLAIM_COLUMNS))


def db_claims() -> tuple[set[tuple[object, ...]], set[frozenset[str]]]:
    rows, clusters = set(), defaultdict(set)
    for c in Claim.objects.all():
        rows.add((c.claim_key, c.sentence, c.start_offset, c.end_offset, c.score, c.claim_type, tuple(c.claim_types),
                  json.dumps(c.quantities, sort_keys=True), c.speaker, c.speaker_title, c.attribution))
        clusters[c.cluster_key].add(c.claim_key)
    return rows, {frozenset(members) for members in clusters.values()}


def cli_claims(tmp_path: Path) -> tuple[set[tuple[object, ...]], set[frozenset[str]]]:
    source = tmp_path / "seeds.jsonl"
    with open(source, "w", encoding="utf-8") as handle:
        for article in seed_articles():
            handle.write(json.dumps({"text": article.text, "outlet": article.outlet, "author": article.author}) + "\n")
    output = subprocess.run(
        [sys.executable, "-m", "pipeline", "extract", str(source)], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    rows, clusters = set(), defaultdict(set)
    for line in output.splitlines():
        c = json.loads(line)
        rows.add((c["claim_key"], c["sentence"], c["start"], c["end"], c["score"], c["type"], tuple(c["types"]),
                  json.dumps(c["quantities"], sort_keys=True), c["speaker"], c["speaker_title"], c["attribution"]))
        clusters[c["cluster_id"]].add(c["claim_key"])
    return rows, {frozenset(members) for members in clusters.values()}


def test_seed_import_runs_through_celery_and_spark_into_postgres(celery_worker: Worker, reviewer, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    started = time.monotonic()
    result = articles_import(source="seeds", articles=seed_articles())
    assert result.run is not None
    run = wait_for_run(result.run.pk)
    elapsed = time.monotonic() - started

    assert run.status == PipelineRun.Status.SUCCEEDED, f"{run.error}\n{run.log_tail}"
    assert run.exit_code == 0
    assert run.stage == "done"
    assert run.articles_count == 3
    assert run.sentences_count > 50
    assert run.claims_count == Claim.objects.count() > 0
    assert set(run.timings) >= {"spark_start", "extract", "load", "total"}
    sentences = list(Claim.objects.values_list("sentence", flat=True))
    assert any("nearly 1,500" in s for s in sentences)
    assert any("Sanctuary does not mean safer streets" in s for s in sentences)
    for claim in Claim.objects.select_related("article"):
        assert claim.article.text[claim.start_offset : claim.end_offset] == claim.sentence
        # Recency is not stored: the queue adds it as it reads (claims migration 0015).
        points = ("checkworthiness", "public_interest", "source", "specificity", "type", "routine", "spread", "contestability")
        # Every appearance carries its cluster lead's parts (one claim, one score).
        assert set(claim.priority_parts) == {*points, "outlets", "topic", "weights_version", "lead_claim_id"}
        assert abs(claim.priority - sum(claim.priority_parts[k] for k in points)) < 1e-6
        # A claim with a headline figure and a name also carries its story keys (pipeline.nlp.stories).
        signals = {"public_interest", "topic", "source", "specificity", "routine", "contestability"}
        assert set(claim.rank_signals) in (signals, {*signals, "story"})
    # The seeds' one figure with a name: ICE's 1,500 in Boston (no other wording of it is held back).
    stories = {key for claim in Claim.objects.filter(rank_signals__has_key="story") for key in claim.rank_signals["story"]}
    assert "people 1.5e+03 | boston" in stories and not ClaimCluster.objects.exclude(repeat_of=None).exists()
    print(f"\nimport -> claims stored for the seeds: {elapsed:.1f}s (spark total {run.timings['total']}s)")

    # One claim, three appearances: the clusters span the outlets that carry the quote.
    flood = Claim.objects.filter(sentence__contains="flood the zone, especially in sanctuary jurisdictions")
    assert flood.count() == 3 and len({c.cluster_key for c in flood}) == 1
    flood_cluster = ClaimCluster.objects.get(cluster_key=flood[0].cluster_key)
    assert (flood_cluster.size, flood_cluster.outlet_count) == (3, 3)
    assert flood_cluster.first_claim_id in {c.pk for c in flood}
    sanctuary = Claim.objects.filter(sentence__contains="Sanctuary does not mean safer streets")
    assert len({c.cluster_key for c in sanctuary}) == 1
    assert ClaimCluster.objects.get(cluster_key=sanctuary[0].cluster_key).outlet_count == 2
    assert all(c.priority_parts["spread"] > 0 for c in flood)

    # The command line gives the same claims and the same clusters as the Spark job.
    assert cli_claims(tmp_path) == db_claims()

    # Re-running changes nothing, and never touches reviewers' work.
    claim = Claim.objects.get(sentence__contains="nearly 1,500")
    ClaimCluster.objects.filter(appearances=claim).update(status=Claim.Status.CHECK, assignee=reviewer, version=2)
    before = claims_snapshot()
    rerun = wait_for_run(run_rerun(run=run).pk)
    assert rerun.status == PipelineRun.Status.SUCCEEDED, f"{rerun.error}\n{rerun.log_tail}"
    assert rerun.claims_count == run.claims_count
    assert rerun.claims_written == 0
    assert claims_snapshot() == before
    claim.refresh_from_db()
    assert (claim.cluster.status, claim.cluster.assignee_id, claim.cluster.version) == (Claim.Status.CHECK, reviewer.pk, 2)

    # A second delivery of the same message does nothing: the run is no longer queued.
    tasks.run_pipeline.apply(args=(rerun.pk,))
    assert PipelineRun.objects.get(pk=rerun.pk).finished_at == rerun.finished_at
    assert claims_snapshot() == before


@pytest.fixture
def failing_worker(transactional_db) -> Iterator[Worker]:  # type: ignore[no-untyped-def]
    # One attempt: retries of a failed run are tested in test_chaos.py.
    worker = Worker(extra_env={"SPARK_APP": str(ROOT / "tests" / "fixtures" / "failing_spark_job.py"), "FACTCHECK_RUN_MAX_ATTEMPTS": "1"})
    worker.route_here()
    yield worker
    worker.stop()
    route_to_unconsumed_queue()


def test_failing_spark_job_marks_run_failed_and_worker_survives(failing_worker: Worker) -> None:
    first = articles_import(source="seeds", articles=seed_articles()[:1]).run
    second = articles_import(source="seeds", articles=seed_articles()[1:2]).run
    assert first is not None and second is not None
    for run_id in (first.pk, second.pk):
        run = wait_for_run(run_id)
        assert run.status == PipelineRun.Status.FAILED
        assert run.exit_code not in (None, 0)
        assert "simulated pipeline failure" in run.error
        assert "simulated pipeline failure" in run.log_tail
        assert run.stage == "failed" and run.finished_at is not None
    # The worker processed the second run after the first failed, and is still up.
    assert failing_worker.alive
    assert Claim.objects.count() == 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def standalone_cluster(tmp_path: Path) -> Iterator[str]:
    """A Spark standalone master and worker on 127.0.0.1, started from the pyspark package."""
    spark_class = Path(sys.executable).parent / "spark-class"
    if not spark_class.exists():
        spark_class = Path(shutil.which("spark-class") or "spark-class")
    master_port, worker_port = free_port(), free_port()
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(tmp_path), "PYSPARK_PYTHON": sys.executable}
    logs = [open(tmp_path / name, "wb") for name in ("master.log", "worker.log")]  # noqa: SIM115
    master = subprocess.Popen(
        [
            str(spark_class), "org.apache.spark.deploy.master.Master",
            "--host", "127.0.0.1", "--port", str(master_port), "--webui-port", str(free_port()),
        ],
        stdout=logs[0], stderr=subprocess.STDOUT, env=env,
    )
    url = f"spark://127.0.0.1:{master_port}"
    worker = subprocess.Popen(
        [str(spark_class), "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--port", str(worker_port),
         "--webui-port", str(free_port()), "--cores", "1", "--memory", "1g", "--work-dir", str(tmp_path / "work"), url],
        stdout=logs[1], stderr=subprocess.STDOUT, env=env,
    )
    try:
        deadline = time.monotonic() + 90
        while b"Successfully registered with master" not in (tmp_path / "worker.log").read_bytes():
            if time.monotonic() > deadline or worker.poll() is not None or master.poll() is not None:
                logs_text = (tmp_path / "master.log").read_text() + (tmp_path / "worker.log").read_text()
                raise RuntimeError(f"Spark standalone cluster did not start:\n{logs_text}")
            time.sleep(0.5)
        yield url
    finally:
        for process in (worker, master):
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        for log in logs:
            log.close()


def test_same_job_runs_on_a_standalone_cluster_by_setting_only(standalone_cluster: str) -> None:
    with override_settings(SPARK_MASTER=standalone_cluster):
        run = articles_import(source="seeds", articles=seed_articles()).run
        assert run is not None
        # The worker's own code path, synchronously: claim, spark-submit, record.
        tasks.run_pipeline.apply(args=(run.pk,))
    run.refresh_from_db()
    assert run.spark_master == standalone_cluster
    assert run.status == PipelineRun.Status.SUCCEEDED, f"{run.error}\n{run.log_tail}"
    assert any("nearly 1,500" in s for s in Claim.objects.values_list("sentence", flat=True))
    assert spark_launcher.build_command(run_id=run.pk, master=standalone_cluster)[1:3] == ["--master", standalone_cluster]
