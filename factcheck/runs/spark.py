"""Launching the Spark application: a process boundary, as Luigi's SparkSubmitTask does it.

Nothing here knows what the job computes. It builds the spark-submit command for the
configured master, hands the job its database through the environment (never on the
command line, where `ps` would show the password), and keeps the log.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

from django.conf import settings
from django.db import connection

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
    query = "&".join(f"{key}={quote(str(value), safe='')}" for key, value in (params.get("OPTIONS") or {}).items())
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
# (client compiler only: 63 -> 36 CPU s for a BBC run in one paired test on 2 cores). Cluster executors,
# which live long, keep the JVM's defaults.
LOCAL_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1"


def is_local(master: str) -> bool:
    return master.startswith("local")


def driver_java_options(master: str) -> str:
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


def build_command(*, run_id: int, master: str | None = None) -> list[str]:
    master = master or settings.SPARK_MASTER
    return spark_submit_command(
        master=master, name=f"factcheck-run-{run_id}", java_options=driver_java_options(master), app=settings.SPARK_APP, app_args=["--run-id", str(run_id)]
    )


def job_environment(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYSPARK_PYTHON": sys.executable, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", **extra}


def submit(*, run_id: int, master: str | None = None) -> SubmitResult:
    """Run spark-submit to completion; the log goes to SPARK_LOG_DIR/run-<id>.log."""
    log_dir = Path(settings.SPARK_LOG_DIR)
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"run-{run_id}.log"
    env = job_environment(PIPELINE_DATABASE_URL=database_url_for_job())
    command = build_command(run_id=run_id, master=master)
    with open(log_path, "wb") as log:
        log.write(("$ " + shlex.join(command) + "\n").encode())
        log.flush()
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=settings.BASE_DIR)
        try:
            exit_code = process.wait()
        finally:
            # A time limit or worker shutdown interrupts wait(); never leave Spark orphaned.
            if process.poll() is None:
                process.kill()
                process.wait()
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
