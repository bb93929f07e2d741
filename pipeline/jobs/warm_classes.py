"""Spark application that runs the claim job's own steps on made-up articles, no database.

    spark-submit ... --driver-java-options "-XX:ArchiveClassesAtExit=FILE" pipeline/jobs/warm_classes.py

factcheck.runs.spark.ensure_class_archive() runs it once to record the JVM classes a run
loads (a dynamic class-data sharing archive), so that later local-mode runs map them
instead of loading and verifying them again. It calls extract_claims.process_run, the
function main() calls, with the same session settings and a broadcast model, on an
InMemoryRun (pipeline.run_store) of made-up articles and stored claims: the recorded job
cannot drift from the real one (tests/pipeline/test_job.py runs it too).
"""

from __future__ import annotations

import hashlib
import sys

from pyspark.sql import SparkSession

from pipeline.jobs.extract_claims import configure_session, process_run
from pipeline.nlp.checkworthiness import read_artifact
from pipeline.run_store import InMemoryRun, StoredClaim

BUCKETS = 4
ARTICLES = 100
SENTENCES = (
    "Police arrested {n} people in the city last year, up {p}% from the year before, the commissioner said.",
    "\u201cWe will not cooperate with federal agents,\u201d Mayor Jane Doe told reporters on Tuesday.",
    "Unemployment fell to {p}.{n}% in March, the lowest rate since 1999, according to the Labor Department.",
    "The new law will cut emissions by {p} percent by 2030, officials claimed.",
    "Critics say the plan costs ${n} million more than the government admits.",
)


def made_up_articles(count: int = ARTICLES) -> list[tuple[int, str, str, str, str]]:
    """(article_id, content_hash, text, outlet, author), as a run reads them."""
    rows = []
    for article_id in range(count):
        text = " ".join(sentence.format(n=1000 + article_id % 7, p=article_id % 5 + 3) for sentence in SENTENCES)
        rows.append((article_id, hashlib.sha256(f"{article_id}:{text}".encode()).hexdigest(), text, f"Outlet {article_id % 3}", "A. Reporter"))
    return rows


def made_up_stored_claims() -> list[StoredClaim]:
    """Stored claims, some of them near the made-up articles' (so the stored side of the band
    shuffle and a cluster merge are exercised), each in its own cluster."""
    claims = []
    for number, sentence in enumerate(SENTENCES):
        key = hashlib.sha1(f"stored:{number}".encode()).hexdigest()
        claims.append(StoredClaim(key, sentence.format(n=1000 + number, p=number + 3), key))
    return claims


def warm_up(spark: SparkSession) -> InMemoryRun:
    configure_session(spark)
    store = InMemoryRun(articles=made_up_articles(), stored=made_up_stored_claims())
    run = process_run(spark, store, model=spark.sparkContext.broadcast(read_artifact()), partitions=BUCKETS)
    print(
        f"warm-classes: {run.sentences} sentences, {run.claims} claims, {len(run.clustering.assigned)} clustered, "
        f"{len(run.clustering.remap)} stored clusters merged",
        flush=True,
    )
    return store


def main() -> int:
    spark = SparkSession.builder.appName("factcheck-warm-classes").getOrCreate()
    warm_up(spark)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
