"""Launching the Spark application: a process boundary, as Luigi's SparkSubmitTask does it.

Nothing here knows what the job computes. It builds the spark-submit command for the
configured master, hands the job its database through the environment (never on the
command line, where `ps` would show the password), and keeps the log.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.metadata
import importlib.util
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal
from urllib.parse import quote

from django.conf import settings
from django.db import connection

from factcheck.postgres.base import DJANGO_ONLY_OPTIONS

PIPELINE_DIR = Path(settings.BASE_DIR) / "pipeline"
EXCEPTION_LINE = re.compile(r"^(?:[\w.]+(?:Error|Exception|Exit)\b.*|.*\bException in thread\b.*)$")


@dataclass(frozen=True)
class SubmitResult:
    exit_code: int
    log_tail: str
    error: str


def database_url_for_job() -> str:
    """The libpq URL of the database this Django process uses (the test database in tests)."""
    params = connection.settings_dict
    user = quote(params.get("USER") or "", safe="")
    password = quote(params.get("PASSWORD") or "", safe="")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = params.get("HOST") or ""
    port = f":{params['PORT']}" if params.get("PORT") else ""
    options = {key: value for key, value in (params.get("OPTIONS") or {}).items() if key not in DJANGO_ONLY_OPTIONS}
    query = "&".join(f"{key}={quote(str(value), safe='')}" for key, value in options.items())
    if host.startswith("/"):
        query = "&".join(filter(None, [f"host={quote(host, safe='')}", query]))
        host = ""
    return f"postgresql://{auth}{host}{port}/{quote(params['NAME'], safe='')}" + (f"?{query}" if query else "")


def spark_submit_path() -> str:
    if settings.SPARK_SUBMIT:
        return settings.SPARK_SUBMIT
    beside_python = Path(sys.executable).parent / "spark-submit"
    if beside_python.exists():
        return str(beside_python)
    found = shutil.which("spark-submit")
    if not found:
        raise FileNotFoundError("spark-submit not found: install pyspark in this environment or set SPARK_SUBMIT")
    return found


@lru_cache(maxsize=1)
def pipeline_archive() -> str:
    """Zip the pipeline package once per process so cluster executors can import it."""
    target = Path(tempfile.mkdtemp(prefix="factcheck-pipeline-")) / "pipeline.zip"
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(PIPELINE_DIR.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                archive.write(path, path.relative_to(PIPELINE_DIR.parent))
    return str(target)


# In local mode the driver JVM is the executor too, and lives for one run on a few cores
# that the Python workers need: C2's background compilation cost more CPU than it returned
# (client compiler only: 63 -> 36 CPU s for a BBC run in one paired test on 2 cores), and
# G1's concurrent threads and remembered sets cost it CPU and resident memory that a heap
# this size, collected in short pauses, does not need (the serial collector: docs/benchmarks.md).
# Cluster executors, which live long, keep the JVM's defaults.
LOCAL_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def is_local(master: str) -> bool:
    return master.startswith("local")


def driver_java_options(master: str) -> str:
    """The driver JVM's options for a master, without the class archive."""
    options = f"-Dlog4j2.configurationFile=file:{PIPELINE_DIR / 'conf' / 'log4j2.properties'}"
    if is_local(master):
        options += f" {LOCAL_JAVA_OPTIONS}"
    return options


def spark_submit_command(*, master: str, name: str, java_options: str, app: str, app_args: list[str]) -> list[str]:
    python = sys.executable
    return [
        spark_submit_path(),
        "--master", master,
        "--name", name,
        "--driver-memory", settings.SPARK_DRIVER_MEMORY,
        "--driver-java-options", java_options,
        "--conf", "spark.ui.enabled=false",
        "--conf", "spark.sql.execution.arrow.pyspark.enabled=true",
        "--conf", f"spark.pyspark.python={python}",
        "--conf", f"spark.pyspark.driver.python={python}",
        # Each Python worker is one task on one core: BLAS threads would only fight each other.
        "--conf", "spark.executorEnv.OMP_NUM_THREADS=1",
        "--conf", "spark.executorEnv.OPENBLAS_NUM_THREADS=1",
        "--py-files", pipeline_archive(),
        *shlex.split(settings.SPARK_EXTRA_ARGS),
        app,
        *app_args,
    ]


def build_command(*, run_id: int, master: str | None = None, model: ScoringModel | None = None) -> list[str]:
    master = master or settings.SPARK_MASTER
    java_options = driver_java_options(master)
    if is_local(master):
        archive = class_archive_path(master)
        if archive is not None and archive.exists():
            java_options += f" -XX:SharedArchiveFile={archive} {QUIET_CDS_LOG}"
    return spark_submit_command(
        master=master, name=f"factcheck-run-{run_id}", java_options=java_options, app=settings.SPARK_APP, app_args=job_arguments(run_id=run_id, model=model)
    )


@dataclass(frozen=True)
class ScoringModel:
    """The check-worthiness model version a run scores with: its artifact directory ("" for
    the shipped one) and its id, which every claim the run writes records."""

    artifact_dir: str
    version_id: int


def active_scoring_model() -> ScoringModel:
    from factcheck.learning.models import ModelKind
    from factcheck.learning.selectors import active_version
    from factcheck.learning.services import model_store_path

    version = active_version(ModelKind.CHECKWORTHINESS)
    path = model_store_path(version)
    return ScoringModel(artifact_dir=str(path) if path else "", version_id=version.pk)


def job_arguments(*, run_id: int, model: ScoringModel | None = None) -> list[str]:
    """The job's own arguments: the run, the matching settings that the web app's re-match
    of the queue uses too (one configuration for both paths that store matches), and the
    model version to score with (None: the shipped models, recorded as no version)."""
    return [
        "--run-id", str(run_id),
        "--match-top", str(settings.FACTCHECK_MATCH_TOP),
        "--match-candidates", str(settings.FACTCHECK_MATCH_CANDIDATES),
        "--match-min-score", repr(settings.FACTCHECK_MATCH_MIN_SCORE),
        *(["--model-dir", model.artifact_dir] if model and model.artifact_dir else []),
        *(["--model-version-id", str(model.version_id)] if model else []),
    ]


def job_environment(**extra: str) -> dict[str, str]:
    # pyspark's bin/ scripts find Spark's home with the first `python3` on PATH: this one's
    # directory goes first, or a shell without the virtualenv activated finds a Python without
    # pyspark and the launch dies before it logs anything of use.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return {**os.environ, "PATH": path, "PYSPARK_PYTHON": sys.executable, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", **extra}


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL when the worker process that started it dies, so a
    killed pool child leaves no Spark job behind to race the run's next attempt (Linux; the
    signal survives spark-submit's exec into the driver JVM)."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


PR_SET_PDEATHSIG = 1
LOST_RUN_EXIT_CODE = -9


def submit(
    *, run_id: int, master: str | None = None, heartbeat: Callable[[], bool] | None = None, heartbeat_seconds: float = 15
) -> SubmitResult:
    """Run spark-submit to completion; the log goes to SPARK_LOG_DIR/run-<id>.log. While it
    runs, `heartbeat` is called every `heartbeat_seconds`; when it answers False the run is
    no longer this process's and spark-submit is killed."""
    log_dir = Path(settings.SPARK_LOG_DIR)
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"run-{run_id}.log"
    env = job_environment(PIPELINE_DATABASE_URL=database_url_for_job())
    # The active version at launch: a promotion during the run applies from the next one.
    command = build_command(run_id=run_id, master=master, model=active_scoring_model())
    lost = False
    with open(log_path, "wb") as log:
        log.write(("$ " + shlex.join(command) + "\n").encode())
        log.flush()
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=settings.BASE_DIR,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None,  # noqa: PLW1509 - async-signal-safe
        )
        try:
            while True:
                try:
                    exit_code = process.wait(timeout=heartbeat_seconds)
                    break
                except subprocess.TimeoutExpired:
                    if heartbeat is not None and not heartbeat():
                        lost = True
                        process.kill()
                        exit_code = process.wait()
                        break
        finally:
            # A time limit or worker shutdown interrupts wait(); never leave Spark orphaned.
            if process.poll() is None:
                process.kill()
                process.wait()
    if lost:
        message = "Stopped: the run was taken back from this worker (no heartbeat in time) and queued again."
        with open(log_path, "a", encoding="utf-8") as handle:
            handle.write(message + "\n")
        return SubmitResult(exit_code=LOST_RUN_EXIT_CODE, log_tail="", error=message)
    with open(log_path, encoding="utf-8", errors="replace") as handle:
        lines = handle.readlines()
    tail = "".join(deque(lines, maxlen=settings.SPARK_LOG_TAIL_LINES))
    error = "" if exit_code == 0 else summarise_error(lines, exit_code)
    return SubmitResult(exit_code=exit_code, log_tail=tail, error=error)


def summarise_error(lines: list[str], exit_code: int) -> str:
    """The last exception line in the whole log: Spark prints the cause long before its
    shutdown chatter, so the tail alone often misses it."""
    for line in reversed(lines):
        stripped = line.strip()
        if EXCEPTION_LINE.match(stripped):
            return f"{stripped[:2000]} (spark-submit exit code {exit_code})"
    return f"spark-submit exited with code {exit_code}"


# --- The class archive: local runs' JVM maps Spark's classes instead of loading them ----------
# A local run's driver JVM spends seconds of its start loading and verifying Spark's classes.
# A dynamic class-data sharing archive (JDK 13+), recorded once by a JVM that ran
# WARM_CLASSES_APP with -XX:ArchiveClassesAtExit, lets later JVMs map them instead. The JVM
# takes an archive only from the same JVM build, with the same class path (each jar's path,
# size and mtime) and compatible options, and otherwise goes on without it (-Xshare:auto, the
# default) after a warning on stdout, which QUIET_CDS_LOG keeps out of the run's log (as it
# does the recording run's many "[warning][cds]" lines, "Pre JDK 6 class not supported by
# CDS" and the like). A truncated archive, though, crashes JDK 17 (SIGBUS while mapping it):
# an archive is only ever put in place whole, by a rename.

WARM_CLASSES_APP = PIPELINE_DIR / "jobs" / "warm_classes.py"
QUIET_CDS_LOG = "-Xlog:cds*=error"
CLASS_PATH_VARIABLES = ("SPARK_CONF_DIR", "HADOOP_CONF_DIR", "YARN_CONF_DIR", "SPARK_DIST_CLASSPATH")
STALE_TEMPORARY_SECONDS = 3600


def java_binary() -> str | None:
    """The java that spark-class runs: JAVA_HOME's, else the first on PATH."""
    if os.environ.get("JAVA_HOME"):
        return str(Path(os.environ["JAVA_HOME"]) / "bin" / "java")
    return shutil.which("java")


@lru_cache(maxsize=4)
def _java_version_output(java: str, modified_ns: int) -> str:
    # modified_ns only keys the cache: a JVM upgraded under a long-lived worker is asked again.
    return subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60, check=True).stderr


def java_version(java: str) -> str:
    """`java -version`: the JVM's build. ", sharing" is dropped: it says whether this JVM
    mapped its own base archive, not which JVM it is."""
    resolved = os.path.realpath(java)
    return re.sub(r",\s*sharing\b", "", _java_version_output(resolved, os.stat(resolved).st_mtime_ns))


def spark_home() -> Path:
    """The Spark that spark-submit runs: SPARK_HOME, a distribution's bin/spark-submit, or
    the jars that come with the pyspark package."""
    if os.environ.get("SPARK_HOME"):
        return Path(os.environ["SPARK_HOME"])
    distribution = Path(spark_submit_path()).resolve().parent.parent
    if (distribution / "jars").is_dir():
        return distribution
    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("pyspark is not installed in this environment")
    return Path(spec.origin).parent


def class_path_facts(home: Path) -> str:
    """What the JVM compares of the class path: each jar's name, size and mtime, and the
    variables that add entries to it."""
    jars = [f"{jar.name} {stat.st_size} {stat.st_mtime_ns}" for jar in sorted((home / "jars").glob("*.jar")) for stat in [jar.stat()]]
    return "\n".join(jars + [f"{name}={os.environ.get(name, '')}" for name in CLASS_PATH_VARIABLES])


def class_archive_name(*, java_version: str, pyspark_version: str, spark_home: str, class_path: str, jvm_options: str) -> str:
    """The archive's file name, from everything that must match for the JVM to take it: a
    JVM, Spark or option change names a new archive rather than reusing one it would refuse."""
    major = re.search(r'version "(\d+)', java_version)
    facts = "\0".join((java_version, pyspark_version, spark_home, class_path, jvm_options))
    digest = hashlib.sha256(facts.encode()).hexdigest()[:16]
    return f"spark-{pyspark_version}-java{major.group(1) if major else 'unknown'}-{digest}.jsa"


def class_archive_path(master: str) -> Path | None:
    """Where the archive for this JVM, this Spark and these options lives, made or not; None
    when it is turned off (SPARK_CLASS_ARCHIVE_DIR empty) or there is no java or Spark to ask."""
    java = java_binary()
    if not settings.SPARK_CLASS_ARCHIVE_DIR or java is None:
        return None
    try:
        home = spark_home()
        name = class_archive_name(
            java_version=java_version(java),
            pyspark_version=importlib.metadata.version("pyspark"),
            spark_home=str(home),
            class_path=class_path_facts(home),
            jvm_options=f"{driver_java_options(master)}\0-Xmx{settings.SPARK_DRIVER_MEMORY}\0{settings.SPARK_EXTRA_ARGS}",
        )
    except (OSError, subprocess.SubprocessError, importlib.metadata.PackageNotFoundError):
        return None
    return Path(settings.SPARK_CLASS_ARCHIVE_DIR) / name


@dataclass(frozen=True)
class ClassArchiveResult:
    outcome: Literal["exists", "created", "failed", "off"]
    path: Path | None
    seconds: float
    detail: str = ""


def ensure_class_archive(*, master: str | None = None, timeout: float = 600) -> ClassArchiveResult:
    """Record the class archive local runs start from, unless it exists. For set-up
    (scripts/setup.sh), never inside a user's run: recording is a whole warm-up job plus
    ~25 s of writing. The JVM writes a temporary file that is renamed into place only after
    a clean exit, so a failed or killed recording, or two at once, never leave a partial
    archive; it also removes archives for another JVM, Spark or options, and temporary files
    an hour old (a crashed recording's)."""
    started = time.monotonic()
    master = master or settings.SPARK_MASTER
    if not is_local(master):
        return ClassArchiveResult("off", None, 0.0, f"master {master} keeps the JVM's defaults")
    if not settings.SPARK_CLASS_ARCHIVE_DIR:
        return ClassArchiveResult("off", None, 0.0, "SPARK_CLASS_ARCHIVE_DIR is empty")
    archive = class_archive_path(master)
    if archive is None:
        return ClassArchiveResult("failed", None, time.monotonic() - started, "no java or Spark found")
    if archive.exists():
        return ClassArchiveResult("exists", archive, time.monotonic() - started)
    archive.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_archives(archive)
    temporary = archive.with_name(f"{archive.name}.{os.getpid()}.tmp")
    log_path = Path(settings.SPARK_LOG_DIR) / "class-archive.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    command = spark_submit_command(
        master=master, name="factcheck-class-archive", app=str(WARM_CLASSES_APP), app_args=[],
        java_options=f"{driver_java_options(master)} -XX:ArchiveClassesAtExit={temporary} {QUIET_CDS_LOG}",
    )
    try:
        with open(log_path, "wb") as log:
            log.write(("$ " + shlex.join(command) + "\n").encode())
            log.flush()
            exit_code = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, env=job_environment(), cwd=settings.BASE_DIR, timeout=timeout).returncode
        if exit_code != 0 or not temporary.is_file() or temporary.stat().st_size == 0:
            detail = f"spark-submit exited with code {exit_code}" if exit_code else "the JVM wrote no archive"
            return ClassArchiveResult("failed", None, time.monotonic() - started, f"{detail} (log: {log_path})")
        os.replace(temporary, archive)
    except subprocess.TimeoutExpired:
        return ClassArchiveResult("failed", None, time.monotonic() - started, f"spark-submit ran past {timeout:.0f} s (log: {log_path})")
    finally:
        temporary.unlink(missing_ok=True)
    return ClassArchiveResult("created", archive, time.monotonic() - started)


def remove_stale_archives(archive: Path) -> None:
    # A JVM that maps an archive keeps it when its file is unlinked: removing one in use is safe.
    for path in archive.parent.glob("spark-*.jsa"):
        if path != archive:
            path.unlink(missing_ok=True)
    for path in archive.parent.glob("spark-*.jsa.*.tmp"):
        try:
            if time.time() - path.stat().st_mtime > STALE_TEMPORARY_SECONDS:
                path.unlink(missing_ok=True)
        except FileNotFoundError:
            continue
