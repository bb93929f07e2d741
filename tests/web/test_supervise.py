"""scripts/supervise.sh, which `make up` runs the web server, the worker and beat under:
a process that dies is started again and the others go on; TERM stops it and its process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import ROOT

SUPERVISE = ROOT / "scripts" / "supervise.sh"
# A stand-in for a server: writes its pid, then waits to be killed.
SERVER = "import os, sys, time; open(sys.argv[1], 'a').write(f'{os.getpid()}\\n'); time.sleep(600)"


def pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def wait_for(condition, timeout: float = 15) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead too.
    return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()


def supervised(name: str, tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path]:
    pid_file = tmp_path / f"{name}.pids"
    process = subprocess.Popen(["bash", str(SUPERVISE), name, sys.executable, "-c", SERVER, str(pid_file)], stderr=subprocess.PIPE)
    wait_for(lambda: len(pids(pid_file)) == 1)
    return process, pid_file


def test_a_killed_process_is_restarted_and_the_other_goes_on(tmp_path: Path) -> None:
    worker, worker_pids = supervised("worker", tmp_path)
    web, web_pids = supervised("web", tmp_path)
    try:
        killed_at = time.monotonic()
        os.kill(pids(worker_pids)[0], signal.SIGKILL)  # the Celery main process, say
        wait_for(lambda: len(pids(worker_pids)) == 2)
        restarted_in = time.monotonic() - killed_at
        assert alive(pids(worker_pids)[1]) and not alive(pids(worker_pids)[0])
        assert pids(web_pids) == pids(web_pids)[:1] and alive(pids(web_pids)[0])  # untouched
        assert restarted_in < 5
        # It keeps doing so: a second death, a second restart (after a longer pause).
        os.kill(pids(worker_pids)[1], signal.SIGKILL)
        wait_for(lambda: len(pids(worker_pids)) == 3)
    finally:
        for process in (worker, web):
            process.terminate()
    for process, pid_file in ((worker, worker_pids), (web, web_pids)):
        assert process.wait(timeout=15) == 0
        wait_for(lambda pid_file=pid_file: not alive(pids(pid_file)[-1]), timeout=5)  # type: ignore[misc]
    assert worker.stderr is not None and b"worker exited with code 137; restarting in 1s" in worker.stderr.read()
