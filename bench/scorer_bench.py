"""Check-worthiness scorer throughput on one core: sentences/s, cold and warm cache.

Prints wall-clock rates and rates per CPU-second of this process (the latter is what one
free core would give when the machine is shared).

    python bench/scorer_bench.py [FILE.jsonl]
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.nlp.checkworthiness import Scorer, read_artifact  # noqa: E402
from pipeline.nlp.segment import split_sentences  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "data" / "bbc_news" / "bbc_news.jsonl"
BATCH = 2000


def main() -> int:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    if path.exists():
        texts = [json.loads(line)["text"] for line in path.open(encoding="utf-8")]
    else:
        print(f"{path} not found; using the seed articles")
        texts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "seeds").glob("*.txt"))] * 200
    sentences = [text[s.start : s.end] for text in texts for s in split_sentences(text)]
    artifact = read_artifact()
    for label in ("cold cache", "warm cache"):
        rates, cpu_rates = [], []
        for _ in range(3):
            scorer = Scorer(artifact)
            if label == "warm cache":
                scorer.score(sentences)
            started, cpu_started = time.perf_counter(), time.process_time()
            for start in range(0, len(sentences), BATCH):
                scorer.score(sentences[start : start + BATCH])
            rates.append(len(sentences) / (time.perf_counter() - started))
            cpu_rates.append(len(sentences) / (time.process_time() - cpu_started))
        print(
            f"scorer, {label}: {statistics.median(rates):,.0f} sentences/s wall, {statistics.median(cpu_rates):,.0f} per CPU-second "
            f"(median of 3, {len(sentences):,} sentences, batches of {BATCH})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
