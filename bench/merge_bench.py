"""The serial tail of a run alone: the merge (pipeline.merge) of 1x, 3x and 10x the BBC corpus's
claims into empty claim tables, step by step, without Spark.

    python bench/scaleout_bench.py --copies 10 --workers 2 --repeat 1   # once: leaves the claims
    python bench/merge_bench.py [--scales 1,3,10] [--repeat 3] [--baseline REV]

Reads the database the scale-out bench leaves (`<name>_scaleout_bench`: BBC x10, its claims
stored). Once, it puts those claims back into claim_staging as one run's rows (tokens and
band keys from claim_signatures), with the clustering the run made (each claim joined to
others, under its cluster), and empties the claim tables. Then each measurement merges the
claims of the first N copies of the corpus (1x: the BBC articles, 3x, 10x) in a transaction
that is rolled back, so every measurement starts from the same state. --baseline REV: the
merge's statements as they are at git revision REV as well, alternated with the working
tree's (REV, new, REV, new, ...), in the same spell. Prints the median seconds per step
(`merge.<step>`, as a run's timings record them), per scale, and each step's seconds per
1,000 claims: a linear cost keeps that figure flat from 1x to 10x.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pipeline_bench import load_average  # noqa: E402

BENCH_RUN_SOURCE = "merge-bench"


def database_url() -> str:
    base = os.environ.get("DATABASE_URL", "postgresql://127.0.0.1:5432/factcheck")
    head, _, name = base.rpartition("/")
    name, _, query = name.partition("?")
    return f"{head}/{name}_scaleout_bench" + (f"?{query}" if query else "")


def prepare(conn: Any) -> int:
    """The stored claims back into staging as one run's rows, once; returns the run's id."""
    row = conn.execute("SELECT run_id FROM claim_staging LIMIT 1").fetchone()
    if row is not None:
        return int(row[0])
    if not conn.execute("SELECT count(*) FROM claims").fetchone()[0]:
        raise SystemExit("no claims stored: run bench/scaleout_bench.py --copies 10 --workers 2 --repeat 1 first")
    run_id = int(conn.execute("SELECT max(id) FROM pipeline_runs").fetchone()[0])
    columns = "claim_key, article_id, sentence, start_offset, end_offset, score, claim_type, speaker, speaker_title, attribution, rank_signals, context"
    conn.execute(
        f"INSERT INTO claim_staging (run_id, {columns}, claim_types, quantities, tokens, bands) "
        f"SELECT %s, {', '.join('c.' + name.strip() for name in columns.split(','))}, "
        "array_to_string(c.claim_types, ','), c.quantities, s.tokens, s.bands "
        "FROM claims c JOIN claim_signatures s ON s.claim_key = c.claim_key",
        [run_id],
    )
    # The clustering's assignments: every claim in a cluster of more than one.
    conn.execute("CREATE TABLE merge_bench_assigned AS SELECT claim_key, cluster_key FROM claims "
                 "WHERE cluster_key IN (SELECT cluster_key FROM claims GROUP BY cluster_key HAVING count(*) > 1)")
    conn.execute("TRUNCATE claims, claim_clusters, claim_signatures, claim_bands, claim_priority_basis CASCADE")
    conn.commit()
    conn.autocommit = True
    conn.execute("VACUUM ANALYZE claims")
    conn.autocommit = False
    return run_id


def scoped(conn: Any, run_id: int, copies: int) -> dict[str, str]:
    """Keep only the first `copies` copies' claims staged (in the caller's transaction);
    returns the clustering's assignments among them."""
    outlets = ["BBC News", *(f"Syndicate {n}" for n in range(1, copies))]
    conn.execute(
        "DELETE FROM claim_staging s USING articles a LEFT JOIN outlets o ON o.id = a.outlet_id "
        "WHERE s.run_id = %s AND a.id = s.article_id AND COALESCE(o.name, '') <> ALL(%s)",
        [run_id, outlets],
    )
    rows = conn.execute(
        "SELECT a.claim_key, a.cluster_key FROM merge_bench_assigned a JOIN claim_staging s ON s.claim_key = a.claim_key AND s.run_id = %s",
        [run_id],
    ).fetchall()
    return dict(rows)


def measure(conn: Any, run_id: int, copies: int, sql_dir: Path | None) -> dict[str, float]:
    from pipeline import merge, sql
    from pipeline.nlp.clustering import Clustering

    if sql_dir is None:
        merge.statement = sql.statement
    else:
        merge.statement = lambda name: (sql_dir / f"{name}.sql").read_text(encoding="utf-8")
    # The rolled-back rows of the measurement before are dead tuples until a vacuum, and the
    # planner's size of `claims` (reltuples) survives a rollback: both as a first run finds them.
    conn.rollback()
    conn.autocommit = True
    conn.execute("VACUUM claims, claim_clusters, claim_signatures, claim_bands")
    conn.autocommit = False
    import psycopg

    side = psycopg.connect(database_url())
    try:
        assigned = scoped(conn, run_id, copies)
        side_scoped(side, run_id, copies)
        timings: dict[str, float] = {}
        started = time.perf_counter()
        # As pipeline.db.merge_with_bands runs them: the band keys on their own connection
        # beside the merge's transaction (both rolled back here).
        with ThreadPoolExecutor(max_workers=1) as beside:
            pending = beside.submit(timed_bands, side, run_id)
            staged, written = merge.merge_run(conn, run_id=run_id, clustering=Clustering(assigned=assigned, remap=[]), timings=timings)
            timings["merge.bands"] = pending.result()
        # What the commit would add: the deferred foreign-key checks of every row written
        # (the claims' five keys among them), fired here, before the rollback.
        checks = time.perf_counter()
        conn.execute("SET CONSTRAINTS ALL IMMEDIATE")
        timings["merge.deferred_checks"] = time.perf_counter() - checks
        timings["merge"] = time.perf_counter() - started
        # What the task after the run does (pipeline.merge.settle_search_indexes), apart; its
        # VACUUM (settle_visibility) cannot run in this rolled-back transaction.
        settling = time.perf_counter()
        merge.settle_search_indexes(conn)
        timings["after.settle"] = time.perf_counter() - settling
        timings["claims"] = staged
    finally:
        conn.rollback()
        side.rollback()
        side.close()
    return timings


def side_scoped(side: Any, run_id: int, copies: int) -> None:
    """The band keys' connection sees the scoped staging rows of the merge's (uncommitted)
    transaction as a temporary copy: a temporary table is found before public's of its name."""
    outlets = ["BBC News", *(f"Syndicate {n}" for n in range(1, copies))]
    side.execute(
        "CREATE TEMP TABLE claim_staging AS SELECT s.* FROM public.claim_staging s JOIN articles a ON a.id = s.article_id "
        "LEFT JOIN outlets o ON o.id = a.outlet_id WHERE s.run_id = %s AND COALESCE(o.name, '') = ANY(%s)",
        [run_id, outlets],
    )
    side.execute("ANALYZE claim_staging")


def timed_bands(side: Any, run_id: int) -> float:
    from pipeline import merge

    started = time.perf_counter()
    merge.write_run_bands(side, run_id=run_id)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", default="1,3,10")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", default="", metavar="REV", help="also the merge's SQL at this git revision, alternated")
    args = parser.parse_args()
    import psycopg

    versions: dict[str, Path | None] = {"new": None}
    if args.baseline:
        directory = Path(f"/tmp/merge-bench-{args.baseline}")
        directory.mkdir(exist_ok=True)
        for path in (ROOT / "pipeline" / "sql").glob("*.sql"):
            shown = subprocess.run(["git", "show", f"{args.baseline}:pipeline/sql/{path.name}"], cwd=ROOT, capture_output=True, text=True)
            if shown.returncode == 0:
                (directory / path.name).write_text(shown.stdout, encoding="utf-8")
        versions = {args.baseline: directory, "new": None}
    with psycopg.connect(database_url()) as conn:
        run_id = prepare(conn)
        for copies in [int(value) for value in args.scales.split(",")]:
            results: dict[str, list[dict[str, float]]] = {name: [] for name in versions}
            for _ in range(args.repeat):
                for name, sql_dir in versions.items():
                    results[name].append(measure(conn, run_id, copies, sql_dir))
            for name, runs in results.items():
                claims = runs[0]["claims"]
                named = {key for run in runs for key in run if key.startswith(("merge", "after."))}
                steps = sorted(named, key=lambda key: -statistics.median(r.get(key, 0) for r in runs))
                figures = ", ".join(f"{key} {statistics.median(r.get(key, 0) for r in runs):.2f}s" for key in steps)
                per_k = statistics.median(r["merge"] for r in runs) / claims * 1000
                print(f"x{copies} [{name}] {int(claims)} claims, median of {len(runs)}: {figures}; "
                      f"{per_k:.3f} s per 1,000 claims; load {load_average()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
