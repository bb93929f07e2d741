"""Where an extraction task's time goes, told back to the driver.

Each task of the job's first stage (udfs.make_claim_stager) times its own parts: loading the
models in a fresh Python worker, reading its articles, extracting their claims, the COPY to
staging. The records travel to the driver with the task's result through a Spark accumulator
(a retried task reports twice: it did the work twice), and `summarise` turns them, with the
stage's own start and end, into the run's timings: what ran inside the tasks, what ran
around them (the job's scheduling and the Python workers' start before the first; the hand-off
to the cache after the last), and how long the cores sat idle between. Nothing here decides
anything; docs/benchmarks.md reads the figures.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from pyspark.accumulators import AccumulatorParam

T = TypeVar("T")
# The parts a task times, in the order they happen (read and extract interleave: the
# extractor pulls articles from the reader as it goes).
PARTS = ("models", "read", "extract", "write")


class RecordsParam(AccumulatorParam[list[dict[str, Any]]]):
    """An accumulator of lists: every task's records, in the order they arrive."""

    def zero(self, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return []

    def addInPlace(self, first: list[dict[str, Any]], second: list[dict[str, Any]]) -> list[dict[str, Any]]:
        first.extend(second)
        return first


def process_age() -> float:
    """Seconds since this process started (a reused Python worker is older than its task)."""
    with open(f"/proc/{os.getpid()}/stat") as handle:
        started_ticks = int(handle.read().rsplit(")", 1)[1].split()[19])
    with open("/proc/uptime") as handle:
        uptime = float(handle.read().split()[0])
    return max(0.0, uptime - started_ticks / os.sysconf("SC_CLK_TCK"))


class TaskClock:
    """One task's record: wall-clock start and end (epoch seconds, to line tasks up with the
    driver's stage) and the seconds spent in each part."""

    def __init__(self) -> None:
        self.record: dict[str, Any] = {"pid": os.getpid(), "age": round(process_age(), 3), "started": time.time()}
        self.seconds = dict.fromkeys(PARTS, 0.0)

    def timed(self, items: Iterable[T], part: str) -> Iterator[T]:
        """`items` as they come, the time spent producing each counted to `part`."""
        iterator = iter(items)
        while True:
            begun = time.perf_counter()
            try:
                item = next(iterator)
            except StopIteration:
                self.seconds[part] += time.perf_counter() - begun
                return
            self.seconds[part] += time.perf_counter() - begun
            yield item

    def add(self, part: str, seconds: float) -> None:
        self.seconds[part] += seconds

    def finish(self, **counts: int) -> dict[str, Any]:
        return {**self.record, "ended": time.time(), **{part: round(value, 4) for part, value in self.seconds.items()}, **counts}


def slots(records: list[dict[str, Any]]) -> int:
    """The most tasks that ran at once: the cores the stage had (Spark's default parallelism
    is no guide: a standalone cluster of one core reports two)."""
    events = sorted([(record["started"], 1) for record in records] + [(record["ended"], -1) for record in records], key=lambda e: (e[0], e[1]))
    running = most = 0
    for _, change in events:
        running += change
        most = max(most, running)
    return most


def summarise(records: list[dict[str, Any]], *, stage_started: float, stage_ended: float) -> dict[str, float]:
    """The extraction stage's part of the run's timings (seconds; epoch `stage_*`):
    `extract.tasks` how many ran and `extract.slots` how many at most at once;
    `extract.<part>` each part summed over the tasks (task seconds, spread over the slots);
    `extract.before_tasks` from the stage's start to the first task's own code (the job's
    planning and scheduling, a Python worker's start and imports); `extract.after_tasks` from
    the last task's end to the stage's (its claims handed to the cache and counted);
    `extract.idle` slot-seconds no task held in between (the tail of an uneven wave)."""
    if not records:
        return {"extract.tasks": 0.0}
    first = min(record["started"] for record in records)
    last = max(record["ended"] for record in records)
    busy = sum(record["ended"] - record["started"] for record in records)
    width = slots(records)
    summary = {"extract.tasks": float(len(records)), "extract.slots": float(width)}
    summary.update({f"extract.{part}": round(sum(record[part] for record in records), 3) for part in PARTS})
    summary["extract.before_tasks"] = round(max(0.0, first - stage_started), 3)
    summary["extract.after_tasks"] = round(max(0.0, stage_ended - last), 3)
    summary["extract.idle"] = round(max(0.0, width * (last - first) - busy), 3)
    return summary


def table(records: list[dict[str, Any]]) -> list[str]:
    """One line per task, in start order, for the job's log."""
    if not records:
        return []
    origin = min(record["started"] for record in records)
    lines = ["task  worker  age(s)  start  end    " + "  ".join(f"{part:>7}" for part in PARTS) + "  claims"]
    for number, record in enumerate(sorted(records, key=lambda r: r["started"]), start=1):
        lines.append(
            f"{number:>4}  {record['pid']:>6}  {record['age']:>6.2f}  {record['started'] - origin:>5.2f}  {record['ended'] - origin:>5.2f}  "
            + "  ".join(f"{record[part]:>7.3f}" for part in PARTS)
            + f"  {record.get('claims', 0):>6}"
        )
    return lines
