"""The extraction tasks' own timing (pipeline.task_profile): what a task counts to each part,
and how the driver sums the tasks up against its stage."""

from __future__ import annotations

import time
from collections.abc import Iterator

from pipeline.task_profile import PARTS, RecordsParam, TaskClock, process_age, slots, summarise, table


def record(started: float, ended: float, **parts: float) -> dict[str, float]:
    return {"pid": 1, "age": 0.0, "started": started, "ended": ended, **dict.fromkeys(PARTS, 0.0), **parts, "claims": 10}


def test_a_part_counts_only_the_time_spent_producing_its_items() -> None:
    def slow() -> Iterator[int]:
        for item in range(3):
            time.sleep(0.02)
            yield item

    clock = TaskClock()
    seen = []
    for item in clock.timed(slow(), "read"):
        seen.append(item)
        time.sleep(0.05)  # the consumer's time is not the reader's
    assert seen == [0, 1, 2]
    assert 0.06 <= clock.seconds["read"] < 0.12
    finished = clock.finish(claims=3)
    assert finished["claims"] == 3 and finished["ended"] >= finished["started"] and set(PARTS) <= set(finished)


def test_the_stage_is_summed_over_its_tasks_and_what_ran_around_them() -> None:
    # Two cores: two tasks from 1 s to 5 s, a third from 5 s to 8 s alone (one core idle 3 s).
    records = [
        record(101.0, 105.0, models=0.5, read=0.2, extract=3.0, write=0.3),
        record(101.0, 105.0, models=0.5, read=0.2, extract=3.1, write=0.2),
        record(105.0, 108.0, extract=2.9, write=0.1),
    ]
    summary = summarise(records, stage_started=100.0, stage_ended=108.5)
    assert summary == {
        "extract.tasks": 3.0,
        "extract.slots": 2.0,
        "extract.models": 1.0,
        "extract.read": 0.4,
        "extract.extract": 9.0,
        "extract.write": 0.6,
        "extract.before_tasks": 1.0,
        "extract.after_tasks": 0.5,
        "extract.idle": 3.0,
    }
    assert summarise([], stage_started=0.0, stage_ended=1.0) == {"extract.tasks": 0.0}
    # One core: tasks one after another, none idle between.
    assert summarise(records[:1] + records[2:], stage_started=100.0, stage_ended=108.0)["extract.idle"] == 0.0
    assert slots(records[:1] + records[2:]) == 1
    assert len(table(records)) == 4 and table([]) == []


def test_records_accumulate_as_lists_and_a_process_knows_its_age() -> None:
    param = RecordsParam()
    total = param.addInPlace(param.zero([]), [record(0, 1)])
    assert len(param.addInPlace(total, [record(1, 2)])) == 2
    assert 0 < process_age() < 24 * 3600 * 365
