-- wrk script for bench/queue_bench.py: counts non-200 answers (a lost session answers 302)
-- and prints one machine-readable line of percentiles in milliseconds.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  non200 = 0
end

function response(status, headers, body)
  if status ~= 200 then
    non200 = non200 + 1
  end
end

function done(summary, latency, requests)
  local bad = 0
  for _, thread in ipairs(threads) do
    bad = bad + thread:get("non200")
  end
  local seconds = summary.duration / 1e6
  io.write(string.format("QUEUE_BENCH p50_ms=%.2f p95_ms=%.2f p99_ms=%.2f requests=%d rps=%.2f non2xx=%d\n",
    latency:percentile(50) / 1000, latency:percentile(95) / 1000, latency:percentile(99) / 1000,
    summary.requests, summary.requests / seconds, bad + summary.errors.status))
end
