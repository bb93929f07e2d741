"""A RunStore for tests of the Spark job's sink, in a module of its own: Spark pickles the
store to its Python workers, which import the module that defines it, and a test module
imports Django."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.run_store import InMemoryRun
from pipeline.staging import CLAIM_COLUMN_NAMES


@dataclass
class FileRun(InMemoryRun):
    """An in-memory run whose sink appends each task's staged claim keys to a file: tasks run
    in Python workers, whose own copies of the store are all a test could otherwise see."""

    staged_path: str = ""

    def write_claims(self, rows: Iterable[Sequence[Any]]) -> int:
        keys = [row[CLAIM_COLUMN_NAMES.index("claim_key")] for row in rows]
        with open(self.staged_path, "a", encoding="utf-8") as staged:
            staged.writelines(f"{key}\n" for key in keys)
        return len(keys)
