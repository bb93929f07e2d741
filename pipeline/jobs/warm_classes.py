"""Spark application that exercises what the claim job loads, on made-up articles, no database.

    spark-submit ... --driver-java-options "-XX:ArchiveClassesAtExit=FILE" pipeline/jobs/warm_classes.py

factcheck.runs.spark.ensure_class_archive() runs it once to record the JVM classes a run
loads (a dynamic class-data sharing archive), so that later local-mode runs map them
instead of loading and verifying them again. What is not loaded here is loaded as usual,
so the job mirrors extract_claims.main(): the same session settings, a broadcast model and
accumulators (a set accumulator among them), a mapInArrow over buckets that extracts claims
and emits their band memberships, a union with stored memberships, the band shuffle
(transforms.candidate_pairs) and a collect; plus a mapInPandas and a toPandas, which the
JVM serves with the same classes.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterator

import pyarrow as pa
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from pipeline.jobs.extract_claims import bucket_frame, configure_session
from pipeline.nlp.checkworthiness import read_artifact, scorer_from_artifact
from pipeline.nlp.clustering import NodeClaim, claim_node, resolve_clusters, signatures
from pipeline.schemas import MEMBERSHIP_SCHEMA
from pipeline.transforms import candidate_pairs, extract_claims
from pipeline.udfs import BucketSet, claim_rows, memberships

BUCKETS = 4
ARTICLES_PER_BUCKET = 25
SENTENCES = (
    "Police arrested {n} people in the city last year, up {p}% from the year before, the commissioner said.",
    "\u201cWe will not cooperate with federal agents,\u201d Mayor Jane Doe told reporters on Tuesday.",
    "Unemployment fell to {p}.{n}% in March, the lowest rate since 1999, according to the Labor Department.",
    "The new law will cut emissions by {p} percent by 2030, officials claimed.",
    "Critics say the plan costs ${n} million more than the government admits.",
)


def made_up_articles(bucket: int) -> list[tuple[int, str, str, str, str]]:
    rows = []
    for number in range(ARTICLES_PER_BUCKET):
        article_id = bucket * ARTICLES_PER_BUCKET + number
        text = " ".join(sentence.format(n=1000 + article_id % 7, p=article_id % 5 + 3) for sentence in SENTENCES)
        rows.append((article_id, hashlib.sha256(text.encode()).hexdigest() + f"{article_id}", text, f"Outlet {article_id % 3}", "A. Reporter"))
    return rows


def main() -> int:
    spark = SparkSession.builder.appName("factcheck-warm-classes").getOrCreate()
    configure_session(spark)
    context = spark.sparkContext
    model = context.broadcast(read_artifact())
    sentence_counter, claim_counter = context.accumulator(0), context.accumulator(0)
    staged_buckets = context.accumulator(set(), BucketSet())
    tokens: dict[int, list[NodeClaim]] = {}

    def extract(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        scorer = scorer_from_artifact(model.value)
        for batch in batches:
            for bucket in batch.column("bucket").to_pylist():
                sentences, rows = claim_rows(made_up_articles(int(bucket)), scorer)
                sentence_counter.add(sentences)
                claim_counter.add(len(rows))
                yield memberships(((claim_node(r.claim_key), r.bands) for r in rows if r.bands), in_run=True)
                staged_buckets.add({int(bucket)})

    def stored(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for bucket in batch.column("bucket").to_pylist():
                texts = [(sentence.format(n=2000 + bucket, p=bucket + 4), []) for sentence in SENTENCES]
                keys = [hashlib.sha1(f"stored:{bucket}:{i}".encode()).hexdigest() for i in range(len(texts))]
                yield memberships(((claim_node(key), bands) for key, (_, bands) in zip(keys, signatures(texts), strict=True)), in_run=False)

    run_df = bucket_frame(spark, BUCKETS).mapInArrow(extract, MEMBERSHIP_SCHEMA)
    stored_df = bucket_frame(spark, BUCKETS).mapInArrow(stored, MEMBERSHIP_SCHEMA)
    pairs = sorted({(row.src, row.dst) for row in candidate_pairs(run_df.unionByName(stored_df)).collect()})
    # The made-up claims' tokens, as the driver would read them from PostgreSQL.
    for bucket in range(BUCKETS):
        _, rows = claim_rows(made_up_articles(bucket), scorer_from_artifact(model.value))
        for r in rows:
            tokens.setdefault(claim_node(r.claim_key), []).append(NodeClaim(r.claim_key, r.tokens, True, None))
    clustering = resolve_clusters(pairs, tokens)
    articles = spark.createDataFrame(
        [(*article, None) for article in made_up_articles(0)],
        "article_id long, content_hash string, text string, outlet string, author string, published_at timestamp",
    )
    claims = extract_claims(articles, model).select(F.size("tokens").alias("tokens")).groupBy("tokens").count().toPandas()
    print(
        f"warm-classes: {sentence_counter.value} sentences, {claim_counter.value} claims, {len(pairs)} candidate pairs, "
        f"{len(clustering.assigned)} clustered, {len(staged_buckets.value)} buckets, {len(claims)} token counts",
        flush=True,
    )
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
