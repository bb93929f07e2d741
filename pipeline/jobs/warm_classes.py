"""Spark application that exercises what the claim job loads, on made-up articles, no database.

    spark-submit ... --driver-java-options "-XX:ArchiveClassesAtExit=FILE" pipeline/jobs/warm_classes.py

factcheck.runs.spark.ensure_class_archive() runs it once to record the JVM classes a run
loads (a dynamic class-data sharing archive), so that later local-mode runs map them
instead of loading and verifying them again. What is not loaded here is loaded as usual,
so the job mirrors extract_claims.main(): the same session settings, a broadcast model and
accumulators, a mapInPandas over buckets that extracts claims, a persisted DataFrame, the
clustering's explode, aggregations, joins and collect against stored claims; plus a
mapInArrow, a repartition and a toPandas, which the JVM serves with the same classes.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterator

import pandas as pd
import pyarrow as pa
from pyspark import StorageLevel
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from pipeline.jobs.extract_claims import bucket_frame, configure_session
from pipeline.nlp.checkworthiness import read_artifact, scorer_from_artifact
from pipeline.nlp.clustering import signatures
from pipeline.schemas import CLUSTER_NODE_SCHEMA, STORED_NODE_SCHEMA
from pipeline.transforms import assign_clusters
from pipeline.udfs import CLUSTER_NODE_COLUMNS, claim_rows

BUCKETS = 4
ARTICLES_PER_BUCKET = 25
SENTENCES = (
    "Police arrested {n} people in the city last year, up {p}% from the year before, the commissioner said.",
    "\u201cWe will not cooperate with federal agents,\u201d Mayor Jane Doe told reporters on Tuesday.",
    "Unemployment fell to {p}.{n}% in March, the lowest rate since 1999, according to the Labor Department.",
    "The new law will cut emissions by {p} percent by 2030, officials claimed.",
    "Critics say the plan costs ${n} million more than the government admits.",
)


def made_up_articles(bucket: int) -> pd.DataFrame:
    rows = []
    for number in range(ARTICLES_PER_BUCKET):
        article_id = bucket * ARTICLES_PER_BUCKET + number
        text = " ".join(sentence.format(n=1000 + article_id % 7, p=article_id % 5 + 3) for sentence in SENTENCES)
        rows.append((article_id, hashlib.sha256(text.encode()).hexdigest() + f"{article_id}", text, f"Outlet {article_id % 3}", "A. Reporter"))
    return pd.DataFrame.from_records(rows, columns=["article_id", "content_hash", "text", "outlet", "author"])


def main() -> int:
    spark = SparkSession.builder.appName("factcheck-warm-classes").getOrCreate()
    configure_session(spark)
    model = spark.sparkContext.broadcast(read_artifact())
    sentence_counter, claim_counter = spark.sparkContext.accumulator(0), spark.sparkContext.accumulator(0)

    def extract(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        scorer = scorer_from_artifact(model.value)
        for batch in batches:
            for bucket in batch["bucket"]:
                sentences, rows = claim_rows(made_up_articles(int(bucket)), scorer)
                sentence_counter.add(sentences)
                claim_counter.add(len(rows))
                yield pd.DataFrame.from_records([(r.claim_key, r.tokens, r.bands) for r in rows if r.bands], columns=list(CLUSTER_NODE_COLUMNS))

    def stored(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for bucket in batch.column("bucket").to_pylist():
                texts = [(sentence.format(n=2000 + bucket, p=bucket + 4), []) for sentence in SENTENCES]
                keys = [hashlib.sha1(f"stored:{bucket}:{i}".encode()).hexdigest() for i in range(len(texts))]
                tokens, bands = zip(*signatures(texts), strict=True)
                cluster_keys = ["" if i % 2 else keys[0] for i in range(len(keys))]
                yield pa.RecordBatch.from_pydict({"claim_key": keys, "tokens": list(tokens), "bands": list(bands), "cluster_key": cluster_keys})

    run_df = bucket_frame(spark, BUCKETS).mapInPandas(extract, CLUSTER_NODE_SCHEMA).persist(StorageLevel.MEMORY_AND_DISK)
    run_df.count()
    stored_df = bucket_frame(spark, BUCKETS).mapInArrow(stored, STORED_NODE_SCHEMA).repartition(2, "claim_key")
    clustering = assign_clusters(run_df, stored_df)
    token_counts = run_df.select(F.size("tokens").alias("tokens")).groupBy("tokens").count().toPandas()
    run_df.unpersist()
    print(
        f"warm-classes: {sentence_counter.value} sentences, {claim_counter.value} claims, {len(clustering.assigned)} clustered, "
        f"{len(token_counts)} token counts",
        flush=True,
    )
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
