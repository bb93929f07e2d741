"""What a run costs against what is stored: 100 new BBC articles on 0 and on 300,000 stored claims.

    python bench/run_cost_bench.py [--stored 300000] [--repeat 3] [--reuse]

Uses a throw-away database `<name>_runcost` on the server of DATABASE_URL. The corpus is
split: `--repeat` sets of 100 articles for the measured runs, the rest for the stored claims.

1. On empty claim tables, each set is run once (tables emptied before each): the work time
   of a run with 0 stored claims.
2. The rest of the corpus is run once (real BBC claims, signatures and band keys), then its
   claims are copied with SQL (bench/sql/copy_stored_*.sql) until `--stored` claims are
   stored: each copy a new claim with a new key, its own cluster, offsets past its article's
   text, and band keys of its own (the original's mixed with the copy number).
3. The same sets run again, one after another, each adding its claims to the stored ones.

Prints the median work time (spark-submit's wall time less JVM and session start) of each
case, their ratio, and the median of each stage. --reuse runs step 3 alone on the database
an earlier run of this bench left (the measured articles' claims removed first).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pipeline_bench import DEFAULT_CORPUS, bench_database_url, load_corpus, run_spark, setup_django  # noqa: E402

RUN_ARTICLES = 100
SQL_DIR = Path(__file__).resolve().parent / "sql"
# The copies' own values; every other column is copied as it is.
COPIED = {
    "claim_key": "md5(c.claim_key || ':' || n.copy) || left(c.claim_key, 8)",
    "cluster_key": "md5(c.claim_key || ':' || n.copy) || left(c.claim_key, 8)",
    "start_offset": "c.start_offset + n.copy * 1000000",
    "end_offset": "c.end_offset + n.copy * 1000000",
}
# Tables a run writes into; emptied before each run on 0 stored claims (those that exist).
CLAIM_TABLES = ("claims", "claim_clusters", "claim_signatures", "claim_bands")


def existing_tables(cursor: object) -> list[str]:
    cursor.execute("SELECT relname FROM pg_class WHERE relkind = 'r' AND relname = ANY(%s)", [list(CLAIM_TABLES)])  # type: ignore[attr-defined]
    return sorted(name for (name,) in cursor.fetchall())  # type: ignore[attr-defined]


def empty_claim_tables() -> None:
    from django.db import connection
    from psycopg import sql

    with connection.cursor() as cursor:
        tables = existing_tables(cursor)
        cursor.execute(sql.SQL("TRUNCATE {} CASCADE").format(sql.SQL(", ").join(map(sql.Identifier, tables))).as_string(cursor.connection))
        cursor.execute("VACUUM ANALYZE claims")


def copy_stored_claims(target: int) -> tuple[int, int]:
    """Copies of the stored claims until `target` are stored; (originals, stored)."""
    from django.db import connection, transaction
    from psycopg import sql

    # One transaction: the copies' cluster rows go in after them (the foreign key is checked at the commit).
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM claims")
        (originals,) = cursor.fetchone()
        cursor.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'claims' AND column_name <> 'id'"
            " AND is_generated = 'NEVER' ORDER BY ordinal_position"
        )
        columns = [name for (name,) in cursor.fetchall()]
        copied = [sql.SQL(COPIED[name]) if name in COPIED else sql.SQL("c.{}").format(sql.Identifier(name)) for name in columns]
        statement = sql.SQL((SQL_DIR / "copy_stored_claims.sql").read_text()).format(
            columns=sql.SQL(", ").join(map(sql.Identifier, columns)), copied=sql.SQL(", ").join(copied)
        )
        missing = max(0, target - originals)
        cursor.execute(statement.as_string(cursor.connection), {"copies": math.ceil(missing / max(originals, 1)), "missing": missing})
        cursor.execute((SQL_DIR / "copy_stored_clusters.sql").read_text())
        cursor.execute((SQL_DIR / "copy_stored_signatures.sql").read_text())
        if "claim_bands" in existing_tables(cursor):
            cursor.execute((SQL_DIR / "copy_stored_bands.sql").read_text())
        cursor.execute("SELECT count(*) FROM claims")
        (stored,) = cursor.fetchone()
    with connection.cursor() as cursor:
        for table in existing_tables(cursor):
            cursor.execute(sql.SQL("VACUUM ANALYZE {}").format(sql.Identifier(table)).as_string(cursor.connection))
    return originals, stored


def describe(label: str, runs: list[dict[str, float]]) -> float:
    work = statistics.median(run["work"] for run in runs)
    stages = ", ".join(
        f"{key[6:]} {statistics.median(run[key] for run in runs):.2f}s" for key in runs[0] if key.startswith("stage_") and key != "stage_total"
    )
    each = ", ".join(f"{run['work']:.2f}" for run in runs)
    print(f"  {label}: work {work:.2f} s (runs: {each}; medians: {stages})")
    return work


def run_sets(article_ids: list[int], repeat: int) -> list[list[int]]:
    return [article_ids[at * RUN_ARTICLES : (at + 1) * RUN_ARTICLES] for at in range(repeat)]


def measure_again(repeat: int) -> int:
    import os

    from pipeline_bench import setup_django as setup

    base = os.environ.get("DATABASE_URL", "postgresql://127.0.0.1:5432/factcheck")
    head, _, name = base.rpartition("/")
    name, _, query = name.partition("?")
    setup(f"{head}/{name}_runcost" + (f"?{query}" if query else ""))
    from django.db import connection

    from factcheck.articles.models import Article

    sets = run_sets(list(Article.objects.order_by("id").values_list("id", flat=True)), repeat)
    with connection.cursor() as cursor:
        cursor.execute((SQL_DIR / "forget_run_articles.sql").read_text(), {"articles": [a for articles in sets for a in articles]})
        cursor.execute("SELECT count(*) FROM claims")
        (stored,) = cursor.fetchone()
        cursor.execute("VACUUM ANALYZE claims")
    full = [run_spark(articles) for articles in sets]
    print(f"a run of {RUN_ARTICLES} new BBC articles, median of {repeat} (sets of distinct articles), --reuse:")
    describe(f"{stored:,} stored claims", full)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--stored", type=int, default=300_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reuse", action="store_true", help="only step 3, on the database an earlier run left")
    args = parser.parse_args()
    if args.reuse:
        return measure_again(args.repeat)
    if not args.corpus.exists():
        print(f"run cost bench: corpus {args.corpus} not found (it lives in ../shared/data, outside the repo); skipped.")
        return 0
    corpus = load_corpus(args.corpus)
    setup_django(bench_database_url("runcost"))
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from factcheck.articles.services import ArticleInput, articles_import

    inputs = (ArticleInput(text=row["text"], title=row.get("title", ""), outlet="BBC News") for row in corpus)
    article_ids = articles_import(source=str(args.corpus), articles=inputs).new_article_ids
    sets = run_sets(article_ids, args.repeat)
    rest = article_ids[args.repeat * RUN_ARTICLES :]

    empty = []
    for articles in sets:
        empty_claim_tables()
        empty.append(run_spark(articles))
    empty_claim_tables()
    started = time.perf_counter()
    run_spark(rest)
    originals, stored = copy_stored_claims(args.stored)
    print(f"stored claims: {originals} from a run over {len(rest)} BBC articles, copied with SQL to {stored} in {time.perf_counter() - started:.0f} s")
    full = [run_spark(articles) for articles in sets]

    print(f"a run of {RUN_ARTICLES} new BBC articles, median of {args.repeat} (sets of distinct articles):")
    on_empty = describe("0 stored claims      ", empty)
    on_full = describe(f"{stored:,} stored claims", full)
    print(f"  ratio: {on_full / on_empty:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
