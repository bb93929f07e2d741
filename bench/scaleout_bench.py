"""Scale-out benchmark: the claim-extraction job on a standalone Spark cluster of one, then two, one-core workers.

    python bench/scaleout_bench.py [--corpus ../shared/data/bbc_news/bbc_news.jsonl] [--copies 10] [--articles N] [--repeat 3] [--workers 1,2]

Starts a real standalone master and its workers from the pyspark installation
(`spark-class org.apache.spark.deploy.master.Master` / `...deploy.worker.Worker --cores 1`),
bound to 127.0.0.1 on free ports, with their work and log directories in a temporary
directory, and stops them (process group and all) at the end, on Ctrl-C and on failure.
The job is submitted exactly as a Celery worker submits it (factcheck.runs.spark.build_command,
`--master spark://127.0.0.1:PORT`, the pipeline shipped with --py-files), over the BBC corpus
repeated --copies times into a throw-away database `<name>_scaleout_bench` (each copy a
syndicated edition: another outlet, and a closing line naming it, so every copy is a distinct
article whose claims are near-duplicates of the original's, as syndicated news is).

Each measurement is a fresh run of the same articles on emptied claim tables; the
configurations alternate (1, 2, 1, 2, ...) on a fresh cluster each time, so drift on a shared
machine hits both alike. Prints, per configuration, medians of: the job's work (its own
timings, JVM and session start excluded), the wall time of spark-submit, the stages, the CPU
seconds of the executors (read from the workers' /proc accounting) and of the driver; then the
speed-up of two workers over one.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import closing, suppress
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pipeline_bench import (  # noqa: E402
    DEFAULT_CORPUS,
    ProcessCpu,
    bench_database_url,
    empty_claim_tables,
    load_average,
    load_corpus,
    profile_lines,
    settle_seconds,
    setup_django,
)

# An executor's JVM heap; the worker offers a little more than the executor asks. The
# Python workers live outside the heap.
EXECUTOR_MEMORY = "1g"
WORKER_MEMORY = "2g"
START_TIMEOUT = 120.0
OUTLETS = ("BBC News", *(f"Syndicate {n}" for n in range(1, 100)))


def free_port() -> int:
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def spark_class() -> str:
    from factcheck.runs import spark

    return str(Path(spark.spark_submit_path()).with_name("spark-class"))


def _die_with_parent() -> None:
    """In the child before exec: a SIGKILL if the bench itself is killed outright."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class StandaloneCluster:
    """A standalone master and `workers` workers of `cores` cores, in their own process groups."""

    def __init__(self, directory: Path, *, workers: int, cores: int = 1, memory: str = WORKER_MEMORY) -> None:
        self.directory, self.workers, self.cores, self.memory = directory, workers, cores, memory
        self.processes: list[subprocess.Popen[bytes]] = []
        self.worker_pids: list[int] = []
        self.master_url = ""
        self._web_port = 0

    def _start(self, name: str, arguments: list[str]) -> subprocess.Popen[bytes]:
        logs = self.directory / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        from factcheck.runs import spark

        env = {
            **spark.job_environment(),
            "SPARK_LOCAL_IP": "127.0.0.1",
            "SPARK_LOCAL_DIRS": str(self.directory / "local"),
            "SPARK_LOG_DIR": str(logs),
            "SPARK_PID_DIR": str(self.directory),
            # The executors' Python workers: one BLAS thread each, as in local mode.
            "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1",
        }
        with open(logs / f"{name}.log", "wb") as log:
            process = subprocess.Popen(
                [spark_class(), *arguments], stdout=log, stderr=subprocess.STDOUT, env=env, cwd=self.directory,
                start_new_session=True, preexec_fn=_die_with_parent,  # noqa: PLW1509 - async-signal-safe
            )
        self.processes.append(process)
        return process

    def _state(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self._web_port}/json/", timeout=5) as response:  # noqa: S310 - our own master
            return dict(json.load(response))

    def _wait(self, ready: str, check: Callable[[dict[str, Any]], bool]) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            for process in self.processes:
                if process.poll() is not None:
                    raise RuntimeError(f"a Spark daemon exited ({process.returncode}) while {ready}:\n{self.log_tails()}")
            try:
                if check(self._state()):
                    return
            except OSError:
                pass
            time.sleep(0.25)
        raise RuntimeError(f"timed out while {ready}:\n{self.log_tails()}")

    def log_tails(self, lines: int = 15) -> str:
        """The end of each daemon's log, for the error: the scratch directory that holds the
        logs is removed when the bench ends, failure or not."""
        tails = []
        for log in sorted((self.directory / "logs").glob("*.log")):
            tail = log.read_text(errors="replace").splitlines()[-lines:]
            tails.append(f"--- {log.name} (last {len(tail)} lines)\n" + "\n".join(tail))
        return "\n".join(tails) or "(no daemon logs)"

    def __enter__(self) -> StandaloneCluster:
        try:
            port, self._web_port = free_port(), free_port()
            self._start("master", [
                "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port), "--webui-port", str(self._web_port),
            ])
            self.master_url = f"spark://127.0.0.1:{port}"
            self._wait("the master starts", lambda state: state.get("status") == "ALIVE")
            for number in range(self.workers):
                work = self.directory / f"worker-{number}"
                work.mkdir(parents=True, exist_ok=True)
                process = self._start(f"worker-{number}", [
                    "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--port", str(free_port()),
                    "--webui-port", str(free_port()), "--cores", str(self.cores), "--memory", self.memory,
                    "--work-dir", str(work), self.master_url,
                ])
                self.worker_pids.append(process.pid)
            self._wait("the workers register", lambda state: sum(
                1 for worker in state.get("workers", []) if worker.get("state") == "ALIVE"
            ) == self.workers)
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """SIGTERM to each daemon's process group (executors and their Python workers are in
        it), then SIGKILL what is left after a grace period."""
        for process in reversed(self.processes):
            if process.poll() is None:
                with suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for process in self.processes:
            with suppress(subprocess.TimeoutExpired):
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
        for process in self.processes:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        self.processes.clear()


class CpuSampler(ProcessCpu):
    """CPU seconds of a standalone run in three groups (pipeline_bench.ProcessCpu): the
    executors (everything below the workers: executor JVMs and their Python workers), the
    driver (spark-submit's tree) and PostgreSQL (the backends serving the bench database)."""

    GROUPS = ("executors", "driver", "postgres")

    def __init__(self, *, workers: list[int], driver: int, database: str, interval: float = 0.2) -> None:
        self.workers, self.driver = workers, driver
        self.executors: set[int] = set()
        self.drivers: set[int] = {driver}
        super().__init__(database, interval)

    def prepare(self, children: dict[int, list[int]]) -> None:
        self.executors = self.descendants(self.workers, children)
        self.drivers = {self.driver} | self.descendants([self.driver], children)

    def group(self, pid: int, command: str, children: dict[int, list[int]]) -> str | None:
        if pid in self.executors:
            return "executors"
        if pid in self.drivers:
            return "driver"
        return "postgres" if self.serves_database(command) else None


def stage_spans(event_log: Path) -> list[tuple[int, int, float, float]]:
    """(stage id, tasks, seconds of task time, seconds from the first task's launch to the last
    one's end) for each stage in a Spark event log."""
    tasks: dict[int, list[tuple[int, int]]] = {}
    with open(event_log, encoding="utf-8") as handle:
        for line in handle:
            event = json.loads(line)
            if event.get("Event") == "SparkListenerTaskEnd":
                info = event["Task Info"]
                tasks.setdefault(int(event["Stage ID"]), []).append((int(info["Launch Time"]), int(info["Finish Time"])))
    return [
        (stage, len(spans), sum(end - start for start, end in spans) / 1000, (max(end for _, end in spans) - min(start for start, _ in spans)) / 1000)
        for stage, spans in sorted(tasks.items())
    ]


def syndicated(corpus: list[dict[str, str]], copies: int, limit: int) -> Iterator[tuple[str, str, str]]:
    """(outlet, title, text) for the corpus `copies` times: copy 0 as BBC News published it,
    each later copy as a partner outlet ran it, with the closing credit line such copies carry."""
    produced = 0
    for copy in range(copies):
        outlet = OUTLETS[copy % len(OUTLETS)]
        for row in corpus:
            if limit and produced >= limit:
                return
            text = row["text"] if copy == 0 else f"{row['text']}\n\nThis article was supplied by BBC News and published by {outlet}."
            yield outlet, row.get("title", ""), text
            produced += 1


def run_job(master: str, article_ids: list[int], cluster: StandaloneCluster, directory: Path, events: Path) -> dict[str, float]:
    from django.db import connection

    from factcheck.runs import services, spark
    from factcheck.runs.models import PipelineRun

    run = services.run_create(article_ids=article_ids)
    attempt = services.run_claim(run_id=run.pk, worker="scaleout-bench", spark_master=master)
    assert attempt is not None, "a fresh run is always claimable"
    command = spark.build_command(run_id=run.pk, master=master)
    env = spark.job_environment(PIPELINE_DATABASE_URL=spark.database_url_for_job(), SPARK_LOCAL_IP="127.0.0.1", SPARK_LOCAL_DIRS=str(directory))
    log_path = ROOT / ".var" / "spark-logs" / f"scaleout-run-{run.pk}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    logged_before = set(events.iterdir())
    started = time.perf_counter()
    with open(log_path, "wb") as log:
        log.write(("$ " + " ".join(command) + "\n").encode())
        log.flush()
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT, preexec_fn=_die_with_parent)  # noqa: PLW1509
        sampler = CpuSampler(workers=cluster.worker_pids, driver=process.pid, database=connection.settings_dict["NAME"])
        try:
            process.wait()
        finally:
            cpu = sampler.stop()
            if process.poll() is None:
                process.kill()
                process.wait()
    wall = time.perf_counter() - started
    if process.returncode != 0:
        lines = log_path.read_text(errors="replace").splitlines()
        raise SystemExit(f"spark-submit failed ({process.returncode}): {spark.summarise_error(lines, process.returncode)}; log: {log_path}")
    services.run_finish(run_id=run.pk, attempt=attempt, exit_code=0, log_tail="")
    settle = settle_seconds()
    run = PipelineRun.objects.get(pk=run.pk)
    timings = dict(run.timings or {})
    # The job's own clock: its total less the JVM and SparkSession start (as pipeline_bench).
    work = float(timings.get("total", wall)) - float(timings.get("spark_start", 0.0))
    figures = {
        "work": work, "wall": wall, "settle": settle, "claims": float(run.claims_count or 0), "sentences": float(run.sentences_count or 0),
        **{f"cpu_{group}": seconds for group, seconds in cpu.items()},
        **{f"stage_{key}": float(value) for key, value in timings.items() if isinstance(value, int | float)},
    }
    for path in set(events.iterdir()) - logged_before:
        for stage, tasks, task_seconds, span in stage_spans(path):
            figures[f"spark_stage{stage}_tasks"], figures[f"spark_stage{stage}_task_s"], figures[f"spark_stage{stage}_span_s"] = tasks, task_seconds, span
    return figures


def median(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(run.get(key, 0.0) for run in runs)


def report(workers: int, runs: list[dict[str, float]]) -> None:
    stages = sorted({key for run in runs for key in run if key.startswith("stage_")})
    spark_stages = sorted({int(key[11:].split("_")[0]) for run in runs for key in run if key.startswith("spark_stage")})
    each = ", ".join(f"{run['work']:.1f}" for run in runs)
    print(f"{workers} worker(s) x 1 core, median of {len(runs)}:")
    print(f"  work (job's timings)  {median(runs, 'work'):8.1f} s   (each: {each})")
    print(f"  wall (spark-submit)   {median(runs, 'wall'):8.1f} s")
    print(f"  after the run         {median(runs, 'settle'):8.1f} s   (not in the work: the task flushing the merge's search entries, vacuuming the claims)")
    print(f"  sentences/s (work)    {median(runs, 'sentences') / median(runs, 'work'):8.0f}")
    print(f"  claims stored         {int(median(runs, 'claims')):8d}")
    print(f"  CPU seconds           executors {median(runs, 'cpu_executors'):.1f}, driver {median(runs, 'cpu_driver'):.1f} "
          f"(JVM start included), PostgreSQL {median(runs, 'cpu_postgres'):.1f}")
    print("  where the work went (medians):")
    for line in profile_lines({key[6:]: median(runs, key) for key in stages}):
        print(f"  {line}")
    print("  Spark stages          " + "; ".join(
        f"{stage}: {median(runs, f'spark_stage{stage}_tasks'):.0f} tasks, {median(runs, f'spark_stage{stage}_task_s'):.1f} task-s "
        f"in {median(runs, f'spark_stage{stage}_span_s'):.1f}s" for stage in spark_stages))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--copies", type=int, default=10, help="times the corpus is repeated (default 10: ~21,000 distinct articles)")
    parser.add_argument("--articles", type=int, default=0, help="stop after this many rows (0: all copies); a quick check: --articles 2000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", default="1,2", help="worker counts to compare, each worker one core (default 1,2)")
    args = parser.parse_args()
    if not args.corpus.exists():
        print(f"scale-out bench: corpus {args.corpus} not found (it lives in ../shared/data, outside the repo); skipped.")
        return 0
    worker_counts = [int(value) for value in args.workers.split(",")]

    def interrupted(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupted)
    # Executors take the conf; the driver waits for every executor before the first job, so
    # no task starts on a half-registered cluster (standalone's default is not to wait).
    os.environ["SPARK_EXTRA_ARGS"] = " ".join([
        os.environ.get("SPARK_EXTRA_ARGS", ""), f"--conf spark.executor.memory={EXECUTOR_MEMORY}",
        "--conf spark.scheduler.minRegisteredResourcesRatio=1.0",
    ]).strip()
    scratch = tempfile.mkdtemp(prefix="scaleout-bench-")
    events = Path(scratch) / "events"
    events.mkdir()
    # Each run's Spark event log: the tasks' launch and finish times per stage.
    os.environ["SPARK_EXTRA_ARGS"] += (
        f" --conf spark.eventLog.enabled=true --conf spark.eventLog.dir=file://{events}"
        " --conf spark.eventLog.rolling.enabled=false --conf spark.eventLog.compress=false"
    )
    try:
        setup_django(bench_database_url("scaleout_bench"))
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        from factcheck.articles.services import ArticleInput, articles_import

        corpus = load_corpus(args.corpus)
        started = time.perf_counter()
        inputs = (ArticleInput(text=text, title=title, outlet=outlet) for outlet, title, text in syndicated(corpus, args.copies, args.articles))
        result = articles_import(source=f"{args.corpus} x{args.copies}", articles=inputs)
        article_ids = result.new_article_ids
        print(f"imported {result.batch.rows_stored} articles ({result.batch.rows_duplicate} duplicates) in {time.perf_counter() - started:.1f}s; "
              f"cores: {os.cpu_count()}; load average {load_average()}")

        runs: dict[int, list[dict[str, float]]] = {count: [] for count in worker_counts}
        for attempt in range(args.repeat):
            for workers in worker_counts:
                directory = Path(scratch) / f"cluster-{attempt}-{workers}"
                empty_claim_tables()
                with StandaloneCluster(directory, workers=workers) as cluster:
                    figures = run_job(cluster.master_url, article_ids, cluster, directory / "driver", events)
                runs[workers].append(figures)
                print(
                    f"  {workers} worker(s), run {attempt + 1}: {figures['work']:.1f}s work, {figures['wall']:.1f}s wall, "
                    f"{int(figures['claims'])} claims; CPU s: executors {figures['cpu_executors']:.1f}, driver {figures['cpu_driver']:.1f}, "
                    f"PostgreSQL {figures['cpu_postgres']:.1f}; "
                    f"load average {load_average()}", flush=True,
                )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        launcher = sys.modules.get("factcheck.runs.spark")
        if launcher is not None and launcher.pipeline_archive.cache_info().currsize:  # the zip shipped with --py-files
            shutil.rmtree(Path(launcher.pipeline_archive()).parent, ignore_errors=True)

    print()
    print(f"corpus: {args.corpus.name} x{args.copies}: {len(article_ids)} distinct articles, {int(median(runs[worker_counts[0]], 'sentences'))} "
          f"sentences; master spark://127.0.0.1, workers of 1 core, executor memory {EXECUTOR_MEMORY}; cores on this machine: {os.cpu_count()}")
    for workers in worker_counts:
        report(workers, runs[workers])
    base = worker_counts[0]
    for workers in worker_counts[1:]:
        print(f"speed-up {workers} workers over {base}: {median(runs[base], 'work') / median(runs[workers], 'work'):.2f}x work, "
              f"{median(runs[base], 'wall') / median(runs[workers], 'wall'):.2f}x wall")
    print(f"load average (1, 5, 15 min) at the end: {load_average()} (the machine may be shared)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
