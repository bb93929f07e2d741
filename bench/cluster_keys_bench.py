"""The clusters a statement refreshes, named by a temporary table (as the merge's statements
read run_touched before) or by an array parameter (cluster_keys, as they take it now).

    python bench/cluster_keys_bench.py

A temporary table of 1,000,000 claims in 200,000 clusters, on the server of DATABASE_URL;
each figure is the median of 5 of the same select over N clusters' members (the temporary
table's time includes filling it, as the merge's CREATE TABLE AS did).
"""

import os
import statistics
import time

import psycopg

url = os.environ["DATABASE_URL"]
with psycopg.connect(url, autocommit=True) as c:
    c.execute(
        "CREATE TEMP TABLE kb_claims AS"
        " SELECT g AS id, md5((g/5)::text)::varchar(40) AS cluster_key, random() AS score FROM generate_series(1, 1000000) g"
    )
    c.execute("CREATE INDEX ON kb_claims (cluster_key)")
    c.execute("ANALYZE kb_claims")
    for n in (2, 1000, 20000, 100000):
        keys = [r[0] for r in c.execute("SELECT DISTINCT cluster_key FROM kb_claims WHERE id %% 10 = 0 LIMIT %s", [n])]
        tt, aa = [], []
        for _ in range(5):
            with c.transaction():
                t0 = time.perf_counter()
                c.execute("CREATE TEMP TABLE run_touched (cluster_key varchar(40)) ON COMMIT DROP")
                with c.cursor().copy("COPY run_touched FROM STDIN") as cp:
                    for k in keys:
                        cp.write_row((k,))
                r1 = c.execute("SELECT count(*), sum(score) FROM kb_claims WHERE cluster_key IN (SELECT cluster_key FROM run_touched)").fetchone()
                tt.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            r2 = c.execute("SELECT count(*), sum(score) FROM kb_claims WHERE cluster_key = ANY(%(k)s::text[])", {"k": keys}).fetchone()
            aa.append(time.perf_counter() - t0)
            assert r1[0] == r2[0]
        print(f"{n:>6} keys ({r1[0]} rows): temp table {statistics.median(tt)*1000:7.1f} ms, array {statistics.median(aa)*1000:7.1f} ms")
