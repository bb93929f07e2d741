"""The merge of one run's staged claims into `claims`, after its clustering: one transaction,
so readers never see half a run. Each statement is a named file in pipeline/sql/.

    with connect(dsn) as conn:
        staged, written = merge_run(conn, run_id=run_id, clustering=clustering)

In order: the clustering's assignments and remaps are written beside the staged claims; the
run's claims, one row per key with its final cluster (run_staged), are inserted or updated
where they differ (merge_claims), the stored clusters merged into others move
(apply_cluster_remap), the run's new and changed signatures go to claim_signatures (their
band keys go to claim_bands beside the merge, on a connection of their own: write_run_bands
and pipeline.db.merge_with_bands), the touched clusters' statistics are refreshed, and the
standing priorities of those that held stored claims (the run's own claims are final as
merge_claims writes them), and the run's scratch rows are deleted. Reviewers' work is the
cluster's (claim_clusters), so a new appearance joining a cluster simply has it; before any
appearance moves, each cluster that stored clusters merge into takes one state made of theirs
(unify_clusters, by the rule in pipeline/cluster_state.py). Every statement reads the run's
rows and the stored rows they reach through an index: none scans every claim, except
refresh_all_priorities when the ranking weights changed without a re-rank. A re-run writes
nothing; reviewer-owned columns are written only when clusters merge, never to change what
reviewers decided for a cluster. Two costs stay off the transaction: the GIN indexes' flush of
the run's search entries (PENDING_LIST_LIMIT; settle_search_indexes after the run) and a check
per row of the run and model version every row names (RUN_REFERENCES, once).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from itertools import groupby
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from pipeline.cluster_state import ClusterState, MergedState, ReviewState, merged_state
from pipeline.nlp.clustering import Clustering
from pipeline.sql import statement
from pipeline.stories_store import refresh_story_repeats

# "factcheck merge": one advisory lock for all runs' merges, and for the web app's re-rank
# after a change of weights (factcheck.claims.ranking.services.claims_rerank): each rewrites cluster
# statistics and priorities across many rows, and two at once could deadlock on them.
MERGE_LOCK_ID = 0x66AC7C4EC5
LOCK = "SELECT pg_advisory_xact_lock(%(lock)s)"
# The version of the weights claim_priority_parts reads (0: none stored, the defaults).
WEIGHTS_VERSION = "SELECT COALESCE((SELECT version FROM ranking_weights WHERE id = 1), 0)"
PRIORITY_BASIS = "SELECT weights_version FROM claim_priority_basis ORDER BY id LIMIT 1"
CLEAR_PRIORITY_BASIS = "DELETE FROM claim_priority_basis"
SET_PRIORITY_BASIS = "INSERT INTO claim_priority_basis (weights_version) VALUES (%(weights_version)s)"
# The merge sorts a run's claims by key and groups them by cluster: in memory, not on disk.
WORK_MEM = "SET LOCAL work_mem = '64MB'"
# The GIN indexes of the tables the merge writes (claims' search, phrase pairs and speaker
# trigrams; the clusters' tags and stories) take new entries into a pending list, which the
# inserting backend flushes into the index each time it outgrows gin_pending_list_limit (4 MB
# by default): every few thousand claims, much of merge_claims' time on a large run.
# Raised for the merge's transaction, the run's entries stay pending and the flush happens
# after the commit, off the merge's lock (settle_search_indexes, sent after each run, or
# autovacuum should that never come). Until then a search reads the pending list as well, so
# searches are slower for the moments after a large run. A run larger than the limit flushes
# on the way, as before.
PENDING_LIST_LIMIT = "SET LOCAL gin_pending_list_limit = '1GB'"
SETTLED_TABLES = ("claims", "claim_clusters")
GIN_INDEXES = """
SELECT c.oid::regclass::text FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
WHERE am.amname = 'gin' AND i.indrelid = ANY(%(tables)s::regclass[]) ORDER BY 1
"""
CLEAN_PENDING_LIST = "SELECT gin_clean_pending_list(%(index)s::regclass)"
# The pages a run's claims went to are not all-visible until a vacuum marks them, and until then
# a walk down the queue's order reads those claims' rows instead of the order's index alone
# (claim_queue_order_idx). They are the top of the queue, and autovacuum comes for inserts only
# once a fifth of the table is new (a day's runs or more on a large desk). VACUUM visits only
# the pages changed since the last one: a fraction of a second after a BBC-sized run on
# 1,000,000 claims.
VACUUM_CLAIMS = "VACUUM claims"

# Statistics of the run's scratch rows only steer this merge's joins: a small sample does
# (ANALYZE reads 300 x target rows). Without them PostgreSQL plans the joins for empty tables
# and nests loops over tens of thousands of rows.
SCRATCH_STATISTICS = "SET LOCAL default_statistics_target = 10"
ANALYZE_SCRATCH = (
    "ANALYZE claim_staging (run_id, claim_key)",
    "ANALYZE claim_cluster_assignments (run_id, claim_key)",
    "ANALYZE claim_cluster_remap (run_id, old_key)",
)
ANALYZE_RUN_STAGED = "ANALYZE run_staged (claim_key, article_id, cluster_key, stored_cluster_key)"
DEFAULT_STATISTICS = "RESET default_statistics_target"
# The claims table's size as the planner believes it (-1 or 0: never analyzed, or empty).
PLANNED_CLAIMS = "SELECT reltuples FROM pg_class WHERE oid = 'claims'::regclass"
ANALYZE_CLAIMS = "ANALYZE claims (id, claim_key, cluster_key, article_id)"
COUNT_RUN_STAGED = "SELECT count(*) FROM run_staged"

# The touched clusters that had a row before this merge's refresh_clusters: those holding
# stored claims (every stored claim's cluster has one; unify_clusters gives a remap's new
# surviving key one). Only their members can need a new priority after merge_claims, which
# writes each of the run's claims with its final cluster's lead and outlets; a cluster new
# in this run is made of the run's claims alone.
TOUCHED_WITH_ROWS = "SELECT COALESCE(array_agg(cluster_key), '{}') FROM claim_clusters WHERE cluster_key = ANY(%(cluster_keys)s::text[])"

# The run and the model version every claim the merge writes names (claims.first_run_id,
# last_run_id, model_version_id): checked here once, and locked against deletion until the
# commit, as the foreign-key constraints did for each row (three checks a claim at the
# commit, a large run's hundreds of thousands). The ORM keeps those keys (SET_NULL,
# PROTECT) without a constraint in the database (claims migration 0040).
RUN_REFERENCES = (
    ("run", "run_id", "SELECT id FROM pipeline_runs WHERE id = %(run_id)s FOR KEY SHARE"),
    ("model version", "model_version_id", "SELECT id FROM learning_model_versions WHERE id = %(model_version_id)s FOR KEY SHARE"),
)

COPY_ASSIGNMENTS = "COPY claim_cluster_assignments (run_id, claim_key, cluster_key) FROM STDIN"
COPY_REMAP = "COPY claim_cluster_remap (run_id, old_key, new_key) FROM STDIN"


def merge_run(
    conn: psycopg.Connection[Any],
    *,
    run_id: int,
    clustering: Clustering,
    model_version_id: int | None = None,
    timings: dict[str, float] | None = None,
) -> tuple[int, int]:
    """Merge the run's staged claims under the clustering's decisions, in the caller's
    transaction (committed with it); the claims written record `model_version_id` as the
    model version that scored them. Returns (distinct staged claims, claims inserted or changed).
    `timings`, if given, receives the seconds of each step ("merge.<step>"): the run's
    timings carry them, so a slow merge says which statement it spent its time in."""
    params: dict[str, Any] = {"run_id": run_id, "model_version_id": model_version_id}
    spent = timings if timings is not None else {}

    @contextmanager
    def step(name: str) -> Iterator[None]:
        started = time.perf_counter()
        yield
        spent[f"merge.{name}"] = round(spent.get(f"merge.{name}", 0.0) + time.perf_counter() - started, 3)

    with step("lock"):
        conn.execute(LOCK, {"lock": MERGE_LOCK_ID})
        for what, name, query in RUN_REFERENCES:
            if (value := params[name]) is not None and conn.execute(query, params).fetchone() is None:
                raise LookupError(f"The merge of run {run_id} names a {what} that does not exist (id {value}); nothing was written.")
    conn.execute(WORK_MEM)
    conn.execute(PENDING_LIST_LIMIT)
    with step("write_clustering"):
        write_clustering(conn, run_id=run_id, assigned=clustering.assigned.items(), remap=clustering.remap)
    with step("run_staged"):
        conn.execute(SCRATCH_STATISTICS)
        for analyze in ANALYZE_SCRATCH:
            conn.execute(analyze)
        conn.execute(statement("run_staged"), params)
        conn.execute(ANALYZE_RUN_STAGED)
        conn.execute(DEFAULT_STATISTICS)
        staged = scalar(conn, COUNT_RUN_STAGED)
        planned_claims = scalar(conn, PLANNED_CLAIMS)
    with step("unify_cluster_state"):
        unify_clusters(conn, run_id=run_id)

    with step("merge_claims"):
        written = {claim_id for (claim_id,) in conn.execute(statement("merge_claims"), params)}
    if planned_claims < staged:
        # The claims table grew from (about) nothing in this transaction, a first run: planned
        # on its old statistics, the statements below nest loops over every claim. Only then,
        # so a run's cost does not grow with what is stored.
        with step("analyze_claims"):
            conn.execute(ANALYZE_CLAIMS)
    with step("apply_cluster_remap"):
        conn.execute(statement("apply_cluster_remap"), params)
    with step("signatures"):
        write_signatures(conn)
    with step("refresh_clusters"):
        touched = conn.execute(statement("run_touched"), params).fetchone()
        params["cluster_keys"] = touched[0] if touched else []
        # Read before refresh_clusters gives the run's new clusters their rows.
        with_stored = conn.execute(TOUCHED_WITH_ROWS, params).fetchone()
        conn.execute(statement("refresh_clusters"), params)
        conn.execute(statement("drop_empty_clusters"), params)
    with step("refresh_priorities"):
        every = refresh_priorities(conn, cluster_keys=with_stored[0] if with_stored else [])
    # One figure, one place at the top: other wordings of a figure ranked above are held back.
    with step("stories"), conn.cursor() as cursor:
        refresh_story_repeats(cursor, None if every else params["cluster_keys"])
    with step("clear_scratch"):
        conn.execute(statement("clear_run_scratch"), params)
    return staged, len(written)


def settle_search_indexes(conn: psycopg.Connection[Any]) -> dict[str, int]:
    """Flush the pending lists a merge left in the GIN indexes it writes (PENDING_LIST_LIMIT)
    into the indexes, one index at a time, each in its own transaction when the connection
    autocommits. Returns the pages flushed per index: none when run again. Takes no merge lock:
    PostgreSQL lets one flush of an index run at a time, beside inserts and searches."""
    indexes = [name for (name,) in conn.execute(GIN_INDEXES, {"tables": list(SETTLED_TABLES)})]
    return {name: scalar(conn, CLEAN_PENDING_LIST, {"index": name}) for name in indexes}


def settle_visibility(conn: psycopg.Connection[Any]) -> None:
    """Mark the pages the runs' merges wrote all-visible (VACUUM_CLAIMS); on an autocommitted
    connection (VACUUM runs in no transaction). Beside reads and merges alike: VACUUM blocks
    neither."""
    conn.execute(VACUUM_CLAIMS)


def scalar(conn: psycopg.Connection[Any], query: str, params: dict[str, Any] | None = None) -> int:
    row = conn.execute(query, params).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def write_clustering(
    conn: psycopg.Connection[Any], *, run_id: int, assigned: Iterable[tuple[str, str]], remap: Iterable[tuple[str, str]]
) -> None:
    """The clustering's decisions beside the run's staged claims: the cluster of each claim it
    joined to others, and each stored cluster it merged into another."""
    with conn.cursor() as cursor, cursor.copy(COPY_ASSIGNMENTS) as copy:
        for key, cluster_key in assigned:
            copy.write_row((run_id, key, cluster_key))
    with conn.cursor() as cursor, cursor.copy(COPY_REMAP) as copy:
        for old_key, new_key in remap:
            copy.write_row((run_id, old_key, new_key))


def write_signatures(conn: psycopg.Connection[Any]) -> None:
    """The run's new and changed signatures into claim_signatures (their band keys are
    write_run_bands', beside the merge)."""
    conn.execute(statement("run_signature_changes"))
    conn.execute(statement("upsert_signatures"))


def write_run_bands(conn: psycopg.Connection[Any], *, run_id: int) -> None:
    """claim_bands for the run's staged claims, its only writer: the keys their stored
    signatures had and their staged ones lack go, the staged ones go in. On a connection of its
    own while the merge's transaction runs, and committed before it, so it reads the staged
    rows and the stored signatures the merge is replacing (pipeline.db.merge_with_bands)."""
    params = {"run_id": run_id}
    conn.execute(statement("delete_replaced_bands"), params)
    conn.execute(statement("insert_run_bands"), params)


def unify_clusters(conn: psycopg.Connection[Any], *, run_id: int) -> int:
    """Each cluster the run's remaps merge stored clusters into takes one reviewer state
    (pipeline.cluster_state.merged_state) made of theirs, read before any appearance moves
    (read_cluster_states.sql) and written to its row with the merge's audit rows
    (write_cluster_states.sql). A surviving key with no row yet (a new claim's, smaller than
    the stored keys) gets one holding the state. Returns the clusters written."""
    rows = conn.execute(statement("read_cluster_states"), {"run_id": run_id}).fetchall()
    states = []
    for new_key, members in groupby(rows, key=lambda row: row[0]):
        merging = list(members)
        clusters = [
            ClusterState(first_id=first_id, state=ReviewState(status, assignee_id, tuple(tags), dismiss_reason), version=version)
            for _, _, first_id, status, assignee_id, tags, dismiss_reason, version in merging
        ]
        merged = merged_state(clusters)
        if merged is None and any(cluster_key == new_key for _, cluster_key, *_ in merging):
            continue  # they agree, and the surviving row holds it already
        if merged is None:
            # They agree, and the surviving key is new: its row takes the state as it is.
            only = clusters[0]
            merged = MergedState(state=only.state, version=only.version, first_id=only.first_id, worked=(), unified_work=False)
        states.append(_state_row(new_key, merged))
    if states:
        conn.execute(statement("write_cluster_states"), {"states": Jsonb(states), "run_id": run_id})
    return len(states)


def _state_row(cluster_key: str, merged: MergedState) -> dict[str, Any]:
    """One cluster's merged state as write_cluster_states.sql reads it (jsonb_to_recordset)."""
    worked = []
    for state, version in merged.worked:
        entry = {"status": state.status, "assignee_id": state.assignee_id, "tags": list(state.tags), "version": version}
        if entry not in worked:
            worked.append(entry)
    return {
        "cluster_key": cluster_key, "first_id": merged.first_id, "status": merged.state.status,
        "assignee_id": merged.state.assignee_id, "dismiss_reason": merged.state.dismiss_reason, "tags": list(merged.state.tags),
        "version": merged.version, "states": worked, "audited": merged.unified_work,
    }


def refresh_priorities(conn: psycopg.Connection[Any], *, cluster_keys: list[str]) -> bool:
    """The standing priorities of the members of `cluster_keys` (the touched clusters holding
    stored claims, TOUCHED_WITH_ROWS); every claim's when the
    weights changed since the stored priorities were computed (a re-rank that never ran).
    Then the weights' version is recorded as the basis. (It is read before the refresh:
    weights saved in between make the next merge refresh everything again.) Returns whether
    it refreshed every claim."""
    basis = conn.execute(PRIORITY_BASIS).fetchone()
    version = scalar(conn, WEIGHTS_VERSION)
    every = basis is not None and basis[0] != version
    if every:
        conn.execute(statement("refresh_all_priorities"))
    else:
        conn.execute(statement("refresh_cluster_priorities"), {"cluster_keys": cluster_keys})
    conn.execute(CLEAR_PRIORITY_BASIS)
    conn.execute(SET_PRIORITY_BASIS, {"weights_version": version})
    return every
