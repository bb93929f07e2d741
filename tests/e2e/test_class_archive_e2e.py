"""The class archive recorded by the real JVM, and taken by the next one."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from factcheck.runs import spark

pytestmark = pytest.mark.e2e


def test_recorded_archive_is_mapped_by_the_next_spark_jvm(settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    settings.SPARK_CLASS_ARCHIVE_DIR = str(tmp_path / "spark-cds")
    settings.SPARK_LOG_DIR = tmp_path / "logs"

    result = spark.ensure_class_archive(master="local[*]")
    assert result.outcome == "created", result.detail
    assert result.path is not None and result.path.stat().st_size > 20 * 2**20
    assert [path.name for path in result.path.parent.iterdir()] == [result.path.name]
    log = (tmp_path / "logs" / "class-archive.log").read_text()
    assert "warm-classes: " in log and "[warning][cds" not in log
    assert spark.ensure_class_archive(master="local[*]").outcome == "exists"

    # -Xshare:on turns "the JVM would go on without it" into a failure: spark-submit starts
    # its driver JVM (same class path, same options) with the archive build_command gives.
    command = spark.build_command(run_id=1, master="local[*]")
    options = command[command.index("--driver-java-options") + 1]
    assert f"-XX:SharedArchiveFile={result.path}" in options
    version = subprocess.run(
        [spark.spark_submit_path(), "--master", "local[*]", "--driver-memory", settings.SPARK_DRIVER_MEMORY,
         "--driver-java-options", f"{options} -Xshare:on", "--version"],
        capture_output=True, text=True, env=spark.job_environment(), cwd=settings.BASE_DIR, timeout=120,
    )
    assert version.returncode == 0, version.stdout + version.stderr
    assert "Unable to use shared archive" not in version.stdout + version.stderr
