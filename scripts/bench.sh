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
say "Claim matching (15,000 BBC sentences against a 30,000-check library)"
"$PY" bench/match_bench.py
say "Bulk import (BBC corpus repeated to 100,000 articles)"
"$PY" bench/import_bench.py
say "HTML extraction (hostile nesting, long pages)"
"$PY" bench/html_bench.py
say "Pipeline end to end (PostgreSQL -> spark-submit -> PostgreSQL) vs plain Python"
"$PY" bench/pipeline_bench.py
say "Triage queue latency (200,000 claims, 10 concurrent users)"
# wrk measures the latency percentiles; without root the bench falls back to Python threads.
if ! command -v wrk >/dev/null && is_root; then apt_install wrk; fi
"$PY" bench/queue_bench.py
say "Exports: claims CSV, ClaimReview feed, PDF report (50,000 claims, 200 published verdicts)"
"$PY" bench/export_bench.py
say "REST API latency (200,000 claims; first vs deep keyset pages)"
"$PY" bench/api_bench.py
