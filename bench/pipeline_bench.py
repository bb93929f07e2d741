"""End-to-end pipeline benchmark: PostgreSQL in, PostgreSQL out, through spark-submit.

    python bench/pipeline_bench.py [--corpus ../shared/data/bbc_news/bbc_news.jsonl] [--repeat 3] [--spark-only]
                                   [--library FILE... [--compare]]

Uses a throw-away database `<name>_bench` on the server of DATABASE_URL. Prints, for the
Spark run: articles/s and sentences/s excluding JVM/SparkSession start-up (reported
separately), claims stored, peak memory of the whole spark-submit process tree; then the
same extraction in one plain Python process, and the ratio. Medians over --repeat runs.
--library: fact-check files imported (manage.py import_factchecks) once, and put back after
each run's emptying of the claim tables (which cascades to the library) with the same ids, so
the run matches its claims against them (the `match` stage) and, from the second run on, with
the index the first one kept (pipeline.match_library); the first run, which builds it, is
reported apart and left out of the medians. Without --library the library is empty.
--compare (with --library): runs without and with the library in turn, --repeat of each, and
prints what matching adds: the ratio of their median work and CPU seconds, measured in the
same spell (the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "data" / "bbc_news" / "bbc_news.jsonl"
sys.path.insert(0, str(ROOT))


class TreeMemory:
    """Peak resident memory of a process and all its descendants, sampled from /proc."""

    def __init__(self, pid: int, interval: float = 0.1) -> None:
        self.pid, self.interval, self.peak = pid, interval, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _children(self) -> dict[int, list[int]]:
        tree: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as handle:
                        ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                tree.setdefault(ppid, []).append(int(entry))
        return tree

    def _rss(self, pid: int) -> int:
        try:
            with open(f"/proc/{pid}/statm") as handle:
                return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            return 0

    def _run(self) -> None:
        while not self._stop.is_set():
            tree, total, stack = self._children(), 0, [self.pid]
            while stack:
                pid = stack.pop()
                total += self._rss(pid)
                stack.extend(tree.get(pid, []))
            self.peak = max(self.peak, total)
            self._stop.wait(self.interval)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


Process = tuple[int, int, float, str]  # (parent pid, start time, CPU seconds, command line)


class ProcessCpu:
    """CPU seconds (user + system) of groups of processes, sampled from /proc while a run goes
    on; a subclass says which group each process is in (`group`). A process counts with the
    last value seen, so one that exits between samples loses at most an interval's worth; one
    that was there before (the bench's own connection, which imported the articles) counts
    only what it used since."""

    GROUPS: tuple[str, ...] = ()

    def __init__(self, database: str, interval: float = 0.2) -> None:
        self.database, self.interval = f" {database} ", interval
        self.seen: dict[tuple[int, int], tuple[str, float]] = {}
        self._sample()
        self.before = {key: cpu for key, (_, cpu) in self.seen.items()}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def _read(pid: int) -> Process | None:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            return None
        return int(fields[1]), int(fields[19]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), command

    @staticmethod
    def descendants(roots: list[int], children: dict[int, list[int]]) -> set[int]:
        """Every process below `roots` (not the roots themselves)."""
        found: set[int] = set()
        stack = [child for root in roots for child in children.get(root, [])]
        while stack:
            pid = stack.pop()
            found.add(pid)
            stack.extend(children.get(pid, []))
        return found

    def serves_database(self, command: str) -> bool:
        return command.startswith("postgres:") and self.database in command

    def group(self, pid: int, command: str, children: dict[int, list[int]]) -> str | None:
        raise NotImplementedError

    def _sample(self) -> None:
        stats = {int(entry): stat for entry in os.listdir("/proc") if entry.isdigit() and (stat := self._read(int(entry))) is not None}
        children: dict[int, list[int]] = {}
        for pid, (parent, *_rest) in stats.items():
            children.setdefault(parent, []).append(pid)
        self.prepare(children)
        for pid, (_, started, cpu, command) in stats.items():
            # Read each time: spark-submit's script execs into the JVM under the same pid.
            group = self.group(pid, command, children)
            if group is not None:
                self.seen[(pid, started)] = (group, cpu)

    def prepare(self, children: dict[int, list[int]]) -> None:
        """Called once per sample before `group`, with each process's children."""

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval)

    def stop(self) -> dict[str, float]:
        self._stop.set()
        self._thread.join()
        self._sample()
        used = [(group, cpu - self.before.get(key, 0.0)) for key, (group, cpu) in self.seen.items()]
        return {name: sum(cpu for group, cpu in used if group == name) for name in self.GROUPS}


class RoleCpu(ProcessCpu):
    """A local run's CPU by role: spark-submit's tree as the JVM, the Python workers (pyspark's
    daemon and the workers it forks) and the driver's Python, and PostgreSQL's backends
    serving the bench's database."""

    GROUPS = ("JVM", "Python workers", "driver Python", "PostgreSQL")

    def __init__(self, pid: int, database: str, interval: float = 0.2) -> None:
        self.pid, self.tree = pid, {pid}
        super().__init__(database, interval)

    def prepare(self, children: dict[int, list[int]]) -> None:
        self.tree = {self.pid} | self.descendants([self.pid], children)

    def group(self, pid: int, command: str, children: dict[int, list[int]]) -> str | None:
        if self.serves_database(command):
            return "PostgreSQL"
        if pid not in self.tree:
            return None
        program = os.path.basename(command.split(" ", 1)[0])
        if "python" in program:
            return "Python workers" if "pyspark.daemon" in command or "pyspark.worker" in command else "driver Python"
        # The JVM, and the launcher scripts that exec into it.
        return "JVM"


def profile_lines(timings: dict[str, float], cpu: dict[str, float] | None = None) -> list[str]:
    """Where a run's work went, from its timings (pipeline_runs.timings, medians over runs):
    the extraction stage around and inside its tasks (pipeline.task_profile), the driver's
    clustering and the merge's steps in PostgreSQL; then CPU seconds by process role."""

    def get(key: str) -> float:
        return float(timings.get(key, 0.0))

    tasks = int(get("extract.tasks"))
    merge_steps = sorted(((key[6:], value) for key, value in timings.items() if key.startswith("merge.") and value >= 0.05), key=lambda item: -item[1])
    lines = [
        f"  extract {get('extract'):6.1f} s   before the first task {get('extract.before_tasks'):.1f} (planning, scheduling, Python worker start and imports); "
        f"after the last {get('extract.after_tasks'):.1f} (hand-off to the cache)",
        f"                 {tasks} tasks, {int(get('extract.slots'))} at once; task seconds: models {get('extract.models'):.1f}, "
        f"read {get('extract.read'):.1f}, extract {get('extract.extract'):.1f}, write (COPY) {get('extract.write'):.1f}; "
        f"idle between tasks {get('extract.idle'):.1f} slot-s",
        f"  cluster {get('cluster'):6.1f} s   pairs {get('cluster.pairs'):.1f} (Spark: the band shuffle, to the driver as Arrow), "
        f"read {get('cluster.read'):.1f} (PostgreSQL), resolve {get('cluster.resolve'):.1f} (driver)",
        f"  load    {get('load'):6.1f} s   " + ", ".join(f"{name} {value:.1f}" for name, value in merge_steps)
        + " (PostgreSQL: the merge's transaction, and the band keys beside it)",
    ]
    if "match" in timings:
        lines.append(f"  match   {get('match'):6.1f} s   beside the cluster and load stages; waited for {get('match_wait'):.1f}")
    if cpu:
        lines.append("  CPU s   " + ", ".join(f"{role} {seconds:.1f}" for role, seconds in cpu.items()))
    return lines


def setup_django(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "factcheck.settings")
    os.environ.setdefault("FACTCHECK_LOCAL", "1")
    import django

    django.setup()


def bench_database_url(suffix: str = "bench") -> str:
    """A fresh `<name>_<suffix>` database on DATABASE_URL's server; each bench has its own
    suffix so one never drops another's database."""
    import psycopg
    from psycopg import sql

    base = os.environ.get("DATABASE_URL", "postgresql://127.0.0.1:5432/factcheck")
    head, _, name = base.rpartition("/")
    name, _, query = name.partition("?")
    bench_name = f"{name}_{suffix}"
    options = f"?{query}" if query else ""
    with psycopg.connect(f"{head}/postgres{options}", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(bench_name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(bench_name)))
    return f"{head}/{bench_name}{options}"


def load_corpus(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def empty_claim_tables() -> None:
    """Every run starts from empty claim tables, as the first does: TRUNCATE, not DELETE,
    so no run inherits the dead rows and bloated indexes of the one before. The cascade
    empties the library too (the desk's entries point at verdicts): library_restore."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE claims, claim_clusters, claim_signatures, claim_bands CASCADE")
        cursor.execute("VACUUM ANALYZE claims")


LIBRARY_ASIDE = "bench_factchecks_aside"


def library_import(paths: list[Path]) -> int:
    """Import the fact-check files once and keep a copy of the rows aside; returns the count."""
    from django.core.management import call_command
    from django.db import connection

    call_command("import_factchecks", *map(str, paths), verbosity=0)
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {LIBRARY_ASIDE}")
        cursor.execute(f"CREATE TABLE {LIBRARY_ASIDE} AS SELECT {library_columns()} FROM factchecks")
        cursor.execute(f"SELECT count(*) FROM {LIBRARY_ASIDE}")
        return int(cursor.fetchone()[0])


def library_columns() -> str:
    """factchecks' stored columns (its search vector is generated)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) FROM information_schema.columns "
            "WHERE table_name = 'factchecks' AND is_generated = 'NEVER'"
        )
        return str(cursor.fetchone()[0])


def library_restore(present: bool) -> None:
    """The library as the next run should see it: the rows set aside (the same ids, so the
    same library key), or none."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE factchecks CASCADE")
        if present:
            columns = library_columns()
            cursor.execute(f"INSERT INTO factchecks ({columns}) SELECT {columns} FROM {LIBRARY_ASIDE}")
            cursor.execute("ANALYZE factchecks")


def run_spark(article_ids: list[int]) -> dict[str, float]:
    from django.db import connection

    from factcheck.runs import services, spark
    from factcheck.runs.models import PipelineRun

    run = services.run_create(article_ids=article_ids)
    attempt = services.run_claim(run_id=run.pk, worker="bench", spark_master="local[*]")
    assert attempt is not None, "a fresh run is always claimable"
    command = spark.build_command(run_id=run.pk, model=spark.active_scoring_model())
    env = {**os.environ, "PIPELINE_DATABASE_URL": spark.database_url_for_job(), "PYSPARK_PYTHON": sys.executable}
    log_path = ROOT / ".var" / "spark-logs" / f"bench-run-{run.pk}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    started, cpu_before = time.perf_counter(), children_cpu()
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
        memory = TreeMemory(process.pid)
        roles = RoleCpu(process.pid, connection.settings_dict["NAME"])
        process.wait()
    wall = time.perf_counter() - started
    cpu = children_cpu() - cpu_before
    peak = memory.stop()
    cpu_roles = roles.stop()
    if process.returncode != 0:
        lines = log_path.read_text(errors="replace").splitlines()
        raise SystemExit(f"spark-submit failed ({process.returncode}): {spark.summarise_error(lines, process.returncode)}; log: {log_path}")
    services.run_finish(run_id=run.pk, attempt=attempt, exit_code=0, log_tail="")
    settle = settle_seconds()
    run = PipelineRun.objects.get(pk=run.pk)
    timings = run.timings
    work = timings["total"] - timings["spark_start"]
    return {
        "settle": settle,
        "wall": wall,
        "jvm_and_session_start": wall - work,
        "work": work,
        "sentences": run.sentences_count,
        "claims": run.claims_count,
        "peak_mb": peak / 2**20,
        "cpu": cpu,
        **{f"cpu_{role}": seconds for role, seconds in cpu_roles.items()},
        **{f"stage_{key}": value for key, value in timings.items()},
    }


def settle_seconds() -> float:
    """The task a run's end sends (runs.tasks.search_indexes_settle: the merge's search entries
    flushed into the GIN indexes, the claims vacuumed), timed here: off the run's path, but
    work the database does for it."""
    from factcheck.runs import services

    started = time.perf_counter()
    services.search_indexes_settle()
    return time.perf_counter() - started


def children_cpu() -> float:
    """CPU seconds (user + system) of the finished child process trees: a figure that
    other load on a shared machine disturbs far less than wall time."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def load_average() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def run_python(corpus: list[dict[str, str]]) -> dict[str, float]:
    import resource

    from pipeline.local import SourceArticle, extract
    from pipeline.nlp.checkworthiness import load_scorer

    articles = [SourceArticle(source=str(i), text=row["text"]) for i, row in enumerate(corpus)]
    started, cpu_started = time.perf_counter(), time.process_time()
    scorer = load_scorer()
    count, sentences, claims = extract(articles, scorer)
    elapsed = time.perf_counter() - started
    return {
        "work": elapsed, "cpu": time.process_time() - cpu_started, "articles": count, "sentences": sentences, "claims": len(claims),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--spark-only", action="store_true", help="skip the plain-Python runs (to compare Spark settings)")
    parser.add_argument("--library", type=Path, nargs="*", default=[], help="fact-check files to match against (import_factchecks)")
    parser.add_argument("--compare", action="store_true", help="with --library: runs without and with it in turn, and the ratio")
    args = parser.parse_args()
    if args.compare and not args.library:
        parser.error("--compare needs --library")
    if not args.corpus.exists():
        print(f"pipeline bench: corpus {args.corpus} not found (it lives in ../shared/data, outside the repo); skipped.")
        return 0
    corpus = load_corpus(args.corpus)
    setup_django(bench_database_url())
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from factcheck.articles.services import ArticleInput, articles_import

    started = time.perf_counter()
    inputs = (ArticleInput(text=row["text"], title=row.get("title", ""), outlet="BBC News") for row in corpus)
    result = articles_import(source=str(args.corpus), articles=inputs)
    print(f"imported {result.batch.rows_stored} articles ({result.batch.rows_duplicate} duplicates) in {time.perf_counter() - started:.1f}s")
    article_ids = result.new_article_ids

    library_size = library_import(args.library) if args.library else 0
    if args.library:
        # The first run of a library builds its index and keeps it; the rest use it.
        empty_claim_tables()
        library_restore(True)
        first = run_spark(article_ids)
        print(
            f"  first run with the library ({library_size} checks; builds and keeps its index): {first['work']:.1f}s work, "
            f"match stage {first.get('stage_match', 0):.1f}s; load average {load_average()}"
        )
    plan = [False, True] if args.compare else [bool(args.library)]
    spark_runs: list[dict[str, float]] = []
    without_runs: list[dict[str, float]] = []
    for attempt in range(args.repeat):
        for with_library in plan:
            empty_claim_tables()
            library_restore(with_library)
            figures = run_spark(article_ids)
            (spark_runs if with_library == bool(args.library) else without_runs).append(figures)
            print(
                f"  spark run {attempt + 1}{' with the library' if with_library else ''}: {figures['work']:.1f}s work + "
                f"{figures['jvm_and_session_start']:.1f}s start, {figures['cpu']:.1f} CPU s, peak {figures['peak_mb']:.0f} MB; "
                f"load average {load_average()}"
            )
    python_runs = [] if args.spark_only else [run_python(corpus) for _ in range(args.repeat)]

    def median(runs: list[dict[str, float]], key: str) -> float:
        return statistics.median(run[key] for run in runs)

    articles = len(article_ids)
    spark_work = median(spark_runs, "work")
    sentences = spark_runs[0]["sentences"]
    print()
    print(f"corpus: {args.corpus.name}: {len(corpus)} lines, {articles} distinct articles, {sentences} sentences; cores: {os.cpu_count()}")
    print(f"spark-submit (local[*]), median of {args.repeat}:")
    print(f"  articles/s           {articles / spark_work:10.0f}")
    print(f"  sentences/s          {sentences / spark_work:10.0f}")
    print(f"  claims stored        {int(spark_runs[0]['claims']):10d}")
    print(f"  work seconds         {spark_work:10.1f}   (JVM and session start excluded); where it went (medians):")
    stages = {key[6:]: median(spark_runs, key) for key in spark_runs[0] if key.startswith("stage_")}
    for line in profile_lines(stages, {role: median(spark_runs, f"cpu_{role}") for role in RoleCpu.GROUPS}):
        print(f"  {line}")
    print(f"  JVM + session start  {median(spark_runs, 'jvm_and_session_start'):10.1f} s (excluded above)")
    print(f"  after the run        {median(spark_runs, 'settle'):10.1f} s (excluded above): the task flushing the merge's search entries, vacuuming the claims")
    print(f"  peak memory (tree)   {median(spark_runs, 'peak_mb'):10.0f} MB")
    print(f"  CPU (tree, all)      {median(spark_runs, 'cpu'):10.1f} s   (JVM start included; {os.cpu_count()} cores)")
    print(f"load average (1, 5, 15 min) at the end: {load_average()} (the machine may be shared)")
    if without_runs:
        work_without, cpu_without = median(without_runs, "work"), median(without_runs, "cpu")
        print(f"what matching against {library_size} checks adds (runs interleaved, medians of {args.repeat}):")
        print(f"  work seconds         {work_without:10.1f} -> {spark_work:.1f}   ({spark_work / work_without:.2f}x)")
        print(f"  CPU (tree, all)      {cpu_without:10.1f} -> {median(spark_runs, 'cpu'):.1f}   ({median(spark_runs, 'cpu') / cpu_without:.2f}x)")
    if not python_runs:
        return 0
    python_work = median(python_runs, "work")
    print(f"plain Python, one process, median of {args.repeat}:")
    print(f"  articles/s           {python_runs[0]['articles'] / python_work:10.0f}")
    print(f"  sentences/s          {python_runs[0]['sentences'] / python_work:10.0f}")
    print(f"  claims               {int(python_runs[0]['claims']):10d}")
    print(f"  peak memory          {median(python_runs, 'peak_mb'):10.0f} MB")
    print(f"  CPU                  {median(python_runs, 'cpu'):10.1f} s")
    print(f"ratio spark/python sentences/s: {python_work / spark_work:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
