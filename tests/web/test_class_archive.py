"""The class archive local runs start from: where it lives, when build_command uses it, how it is made.

The recording itself is stood in for by a fake spark-submit here (what the JVM would write,
or fail to); tests/e2e/test_class_archive_e2e.py records one with the real JVM.
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
import time
from pathlib import Path

import pytest

from factcheck.runs import spark

JAVA_17 = 'openjdk version "17.0.15" 2025-04-15\nOpenJDK 64-Bit Server VM (build 17.0.15+6-Debian-1deb12u1, mixed mode, sharing)\n'
JAVA_17_NEXT = 'openjdk version "17.0.16" 2025-07-15\nOpenJDK 64-Bit Server VM (build 17.0.16+8-Debian-1deb12u1, mixed mode, sharing)\n'


@pytest.fixture
def archive_dir(settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("SPARK_HOME", raising=False)
    settings.SPARK_CLASS_ARCHIVE_DIR = str(tmp_path / "spark-cds")
    settings.SPARK_LOG_DIR = tmp_path / "logs"
    return tmp_path / "spark-cds"


def executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def fake_java(home: Path, version: str, *, modified: float) -> None:
    java = executable(home / "bin" / "java", f"#!/bin/sh\ncat >&2 <<'EOF'\n{version}EOF\n")
    os.utime(java, (modified, modified))


def fake_spark_submit(path: Path, *, writes: bytes, exit_code: int) -> None:
    """Writes `writes` where -XX:ArchiveClassesAtExit points, as the JVM does at exit, and
    exits with `exit_code`; notes in `<path>.calls` that it ran."""
    executable(path, f"""#!{sys.executable}
import re, sys
options = sys.argv[sys.argv.index("--driver-java-options") + 1]
target = re.search(r"-XX:ArchiveClassesAtExit=(\\S+)", options).group(1)
open(target, "wb").write({writes!r})
open({str(path) + ".calls"!r}, "a").write(options + "\\n")
sys.exit({exit_code})
""")


def java_options(command: list[str]) -> str:
    return command[command.index("--driver-java-options") + 1]


def test_local_run_without_an_archive_gets_no_archive_options(archive_dir: Path) -> None:
    options = java_options(spark.build_command(run_id=7, master="local[*]"))
    assert options == spark.driver_java_options("local[*]")
    assert "SharedArchiveFile" not in options and "-Xlog" not in options


def test_local_run_maps_the_archive_quietly_in_one_argument(archive_dir: Path) -> None:
    archive = spark.class_archive_path("local[*]")
    assert archive is not None and archive.parent == archive_dir
    archive_dir.mkdir()
    archive.write_bytes(b"archive")
    command = spark.build_command(run_id=7, master="local[*]")
    options = java_options(command)
    assert shlex.split(options) == [*shlex.split(spark.driver_java_options("local[*]")), f"-XX:SharedArchiveFile={archive}", "-Xlog:cds*=error"]
    assert command[command.index("--driver-java-options") + 2] == "--conf"


def test_cluster_run_keeps_the_jvm_defaults_even_with_an_archive(archive_dir: Path) -> None:
    archive = spark.class_archive_path("local[*]")
    assert archive is not None
    archive_dir.mkdir()
    archive.write_bytes(b"archive")
    options = java_options(spark.build_command(run_id=7, master="spark://127.0.0.1:7077"))
    assert options == f"-Dlog4j2.configurationFile=file:{spark.PIPELINE_DIR / 'conf' / 'log4j2.properties'}"


def test_archive_off_when_its_directory_setting_is_empty(archive_dir: Path, settings) -> None:  # type: ignore[no-untyped-def]
    settings.SPARK_CLASS_ARCHIVE_DIR = ""
    assert spark.class_archive_path("local[*]") is None
    assert "SharedArchiveFile" not in java_options(spark.build_command(run_id=7, master="local[*]"))
    assert spark.ensure_class_archive(master="local[*]").outcome == "off"


def test_archive_name_follows_the_java_build(archive_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jdk = tmp_path / "jdk"
    monkeypatch.setenv("JAVA_HOME", str(jdk))
    fake_java(jdk, JAVA_17, modified=1_700_000_000)
    first = spark.class_archive_path("local[*]")
    fake_java(jdk, JAVA_17.replace(", sharing", ""), modified=1_700_000_100)
    assert spark.class_archive_path("local[*]") == first  # the same JVM, its base archive not mapped this time
    fake_java(jdk, JAVA_17_NEXT, modified=1_700_000_200)  # upgraded in place
    upgraded = spark.class_archive_path("local[*]")
    assert first is not None and upgraded is not None
    assert first.name.startswith("spark-4.") and "-java17-" in first.name
    assert upgraded != first and upgraded.parent == first.parent


def test_archive_name_follows_spark_and_the_jvm_options() -> None:
    facts = {"java_version": JAVA_17, "pyspark_version": "4.0.1", "spark_home": "/spark", "class_path": "a.jar 1 2", "jvm_options": "-Xmx2g"}
    name = spark.class_archive_name(**facts)
    assert spark.class_archive_name(**facts) == name
    for field, other in (("pyspark_version", "4.0.2"), ("spark_home", "/other"), ("class_path", "a.jar 1 3"), ("jvm_options", "-Xmx4g")):
        assert spark.class_archive_name(**{**facts, field: other}) != name, field


def test_failed_recording_leaves_no_archive_and_no_temporary_file(archive_dir: Path, settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    settings.SPARK_SUBMIT = str(tmp_path / "bin" / "spark-submit")
    fake_spark_submit(Path(settings.SPARK_SUBMIT), writes=b"half an archive", exit_code=1)
    result = spark.ensure_class_archive(master="local[*]")
    assert (result.outcome, result.path) == ("failed", None)
    assert "exited with code 1" in result.detail
    assert Path(settings.SPARK_SUBMIT + ".calls").exists()
    assert list(archive_dir.iterdir()) == []


def test_recording_renames_the_whole_archive_into_place_once(archive_dir: Path, settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    settings.SPARK_SUBMIT = str(tmp_path / "bin" / "spark-submit")
    fake_spark_submit(Path(settings.SPARK_SUBMIT), writes=b"a whole archive", exit_code=0)
    archive_dir.mkdir()
    stale = archive_dir / "spark-3.5.0-java17-0000000000000000.jsa"
    stale.write_bytes(b"for another Spark")
    crashed = archive_dir / "spark-4.0.1-java17-0000000000000000.jsa.123.tmp"
    crashed.write_bytes(b"left by a crash")
    os.utime(crashed, (time.time() - 2 * spark.STALE_TEMPORARY_SECONDS,) * 2)
    recording = archive_dir / "spark-4.0.1-java17-0000000000000000.jsa.456.tmp"
    recording.write_bytes(b"another recording, still running")

    result = spark.ensure_class_archive(master="local[*]")
    assert result.outcome == "created" and result.path == spark.class_archive_path("local[*]")
    assert result.path is not None and result.path.read_bytes() == b"a whole archive"
    assert sorted(archive_dir.iterdir()) == sorted([result.path, recording])
    calls = Path(settings.SPARK_SUBMIT + ".calls").read_text().splitlines()
    assert len(calls) == 1 and f"-XX:ArchiveClassesAtExit={result.path}.{os.getpid()}.tmp" in calls[0]
    assert "-Xlog:cds*=error" in calls[0] and "SharedArchiveFile" not in calls[0]

    again = spark.ensure_class_archive(master="local[*]")
    assert (again.outcome, again.path) == ("exists", result.path)
    assert len(Path(settings.SPARK_SUBMIT + ".calls").read_text().splitlines()) == 1


def test_cluster_master_records_nothing(archive_dir: Path) -> None:
    assert spark.ensure_class_archive(master="yarn").outcome == "off"
    assert not archive_dir.exists()
