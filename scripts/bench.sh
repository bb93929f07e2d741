#!/usr/bin/env bash
# `make bench`: benchmarks that print figures (medians; machines are noisy).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
bash "$ROOT/scripts/setup.sh"
load_env
cd "$ROOT"
say "Sentence segmenter (one core)"
"$PY" bench/segment_bench.py
say "Check-worthiness scorer (one core)"
"$PY" bench/scorer_bench.py
say "Claim matching (15,000 BBC sentences against a 30,000-check library: build, kept index read back, claims/s)"
"$PY" bench/match_bench.py
say "Bulk import (BBC corpus repeated to 100,000 articles)"
"$PY" bench/import_bench.py
say "Sources: polls of a local site of 1,000 feeds and 20,000 BBC pages (90 s at most), then a new item to its claims"
"$PY" bench/sources_bench.py
say "HTML extraction (hostile nesting, long pages)"
"$PY" bench/html_bench.py
say "Pipeline end to end (PostgreSQL -> spark-submit -> PostgreSQL) vs plain Python"
"$PY" bench/pipeline_bench.py
DATA="$ROOT/../shared/data"
if [ -d "$DATA/liar" ] && [ -d "$DATA/claim_matching" ]; then
  say "What matching adds to the BBC run (24,094 LIAR + Snopes checks; runs without and with, in turn)"
  "$PY" bench/pipeline_bench.py --spark-only --compare --corpus "$DATA/bbc_news/bbc_news.jsonl" \
    --library "$DATA/liar/train.tsv" "$DATA/claim_matching/vclaims.jsonl"
fi
say "What a run costs: 100 new BBC articles on 0 and on 300,000 stored claims"
"$PY" bench/run_cost_bench.py
# Long (six runs of the whole job over ~21,000 articles): BENCH_SCALEOUT=0 skips it, and BENCH_SCALEOUT_ARGS
# shrinks it, e.g. BENCH_SCALEOUT_ARGS="--articles 2000 --repeat 1" make bench.
if [ "${BENCH_SCALEOUT:-1}" != 0 ]; then
  say "Scale-out: the job on a standalone Spark master, 1 then 2 workers of 1 core (BBC x10)"
  # shellcheck disable=SC2086 # word splitting intended: a list of arguments
  "$PY" bench/scaleout_bench.py ${BENCH_SCALEOUT_ARGS:-}
fi
say "Triage queue and API list latency (1,000,000 claims, 10 concurrent users; two shapes)"
# wrk measures the latency percentiles; without root the bench falls back to Python threads.
if ! command -v wrk >/dev/null && is_root; then apt_install wrk; fi
# BENCH_QUEUE_CLAIMS=200000 make bench: a smaller fill (the 1,000,000 fills take minutes each).
"$PY" bench/queue_bench.py --claims "${BENCH_QUEUE_CLAIMS:-1000000}" --articles 20000 --shape spread
"$PY" bench/queue_bench.py --claims "${BENCH_QUEUE_CLAIMS:-1000000}" --articles 20000 --shape syndicated
say "The queue's walk statements alone, in PostgreSQL (the syndicated database above)"
"$PY" bench/queue_walks.py --runs 4
say "Exports: claims CSV, ClaimReview feed, PDF report (50,000 claims, 200 published verdicts)"
"$PY" bench/export_bench.py
say "REST API latency (200,000 claims; first vs deep keyset pages)"
"$PY" bench/api_bench.py
