"""`make up` and `make test` from a clone in a directory only root can enter (issue 14, item 7).

As root, the set-up hands paths to other users: PostgreSQL runs as 'postgres', nginx's workers
drop to 'nobody' unless told otherwise. Every path they get must be one they can reach, even
when the clone sits under /root or a 0700 `mktemp -d` directory. These tests clone this
checkout into such a directory and run the real scripts there: the project-local PostgreSQL
and Redis, the migrations, a manage.py command, and `make up`'s web serving (scripts/serve.sh),
whose ports are taken by someone else between its free-port check and its bind."""

from __future__ import annotations

import contextlib
import glob
import http.client
import os
import pwd
import queue
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.e2e


def _missing() -> str | None:
    if os.geteuid() != 0:
        return "not root: only root's set-up hands paths to other users (a non-root clone is its owner's own)"
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return "no 'postgres' user to run the project-local PostgreSQL as"
    if not glob.glob("/usr/lib/postgresql/*/bin/initdb") or shutil.which("redis-server") is None:
        return "no PostgreSQL or Redis server binaries (scripts/bootstrap.sh installs them as root)"
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return "not a git checkout: nothing to clone"
    return None


MISSING = _missing()
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)


def clean_env(**extra: str) -> dict[str, str]:
    """A new shell's environment, without this test run's database, broker or settings: the
    clone's scripts choose and write their own, as for a newcomer."""
    env = {name: os.environ[name] for name in ("PATH", "HOME", "LANG", "USER", "LOGNAME", "TMPDIR") if name in os.environ}
    return {**env, **extra}


def in_clone(clone: Path, script: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """SCRIPT run by bash in the clone with its own environment (scripts/lib.sh's load_env)."""
    return subprocess.run(
        ["bash", "-c", f". scripts/lib.sh && load_env && {script}"],
        cwd=clone,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def read_env(clone: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in (clone / ".var" / "env").read_text().splitlines() if "=" in line)
    return {name: value.strip("'") for name, value in pairs}


@dataclass
class SetUp:
    clone: Path
    services: subprocess.CompletedProcess[str]
    migrate: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def private_clone() -> Iterator[SetUp]:
    """This checkout (HEAD plus its uncommitted changes to tracked files) cloned into a 0700
    directory, with scripts/services.sh and the migrations of scripts/setup.sh run in it.
    Stopped and removed afterwards, with the PostgreSQL data directory it put in /var/tmp."""
    if MISSING:
        pytest.skip(MISSING)
    parent = Path(tempfile.mkdtemp(prefix="factcheck-private-"))
    assert stat.S_IMODE(parent.stat().st_mode) == 0o700
    clone = parent / "factcheck"
    git = ["git", "-C", str(ROOT)]
    commit = subprocess.run([*git, "stash", "create"], capture_output=True, text=True, check=True).stdout.strip()
    commit = commit or subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    try:
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "-q", commit], check=True)
        # scripts/setup.sh first runs scripts/bootstrap.sh, which would make a virtualenv in
        # the clone and pip-install every pinned requirement into it: minutes, and nothing
        # that depends on where the clone is. The clone uses this interpreter's virtualenv
        # through a link instead (as the project's worktrees do) and runs the rest of the
        # set-up: the services, then the migrations.
        (clone / ".venv").symlink_to(Path(sys.prefix))
        services = subprocess.run(["bash", "scripts/services.sh"], cwd=clone, env=clean_env(), capture_output=True, text=True, timeout=180, check=False)
        migrate = in_clone(clone, '"$PY" manage.py migrate --no-input -v0') if services.returncode == 0 else services
        yield SetUp(clone, services, migrate)
    finally:
        if clone.exists():
            subprocess.run(["bash", "scripts/services.sh", "stop"], cwd=clone, env=clean_env(), capture_output=True, timeout=120, check=False)
        data = clone / ".var" / "postgres"
        if data.is_symlink() and data.resolve().parent == Path("/var/tmp"):
            shutil.rmtree(data.resolve(), ignore_errors=True)
        shutil.rmtree(parent, ignore_errors=True)


def test_services_and_migrations_run_from_a_clone_only_root_can_enter(private_clone: SetUp) -> None:
    clone = private_clone.clone
    assert private_clone.services.returncode == 0, private_clone.services.stdout + private_clone.services.stderr
    assert private_clone.migrate.returncode == 0, private_clone.migrate.stdout + private_clone.migrate.stderr

    # The data directory lives where the postgres user can reach it, and is its own.
    data = (clone / ".var" / "postgres").resolve() / "data"
    assert not data.is_relative_to(clone.parent)
    assert pwd.getpwuid(data.stat().st_uid).pw_name == "postgres"
    assert (data / "PG_VERSION").exists()

    # A manage.py command reads the clone's own database: every migration applied.
    shown = in_clone(clone, '"$PY" manage.py showmigrations')
    assert shown.returncode == 0, shown.stderr
    assert "[X]" in shown.stdout and "[ ]" not in shown.stdout, shown.stdout

    env = read_env(clone)
    assert re.fullmatch(r"postgresql://factcheck@127\.0\.0\.1:\d+/factcheck", env["DATABASE_URL"])
    # The broker URL points at the clone's own Redis: the one answering there has its pid.
    redis_port = re.fullmatch(r"redis://127\.0\.0\.1:(\d+)/0", env["CELERY_BROKER_URL"])
    assert redis_port is not None, env["CELERY_BROKER_URL"]
    info = subprocess.run(["redis-cli", "-p", redis_port.group(1), "INFO", "server"], capture_output=True, text=True, timeout=10, check=True).stdout
    pid = (clone / ".var" / "redis" / "redis.pid").read_text().strip()
    assert f"process_id:{pid}" in [line.strip() for line in info.splitlines()], info


# --- make up's web serving: ports taken between the check and the bind ------------------------


def ports_in_a_row(count: int) -> int:
    """The first of COUNT consecutive ports nothing is bound to."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            first = int(probe.getsockname()[1])
        if first + count > 65535:
            continue
        try:
            for port in range(first, first + count):
                with socket.socket() as sock:
                    sock.bind(("127.0.0.1", port))
        except OSError:
            continue
        return first
    raise AssertionError(f"no {count} free ports in a row")


class SomeoneElse:
    """Another program's server on PORT: bound from the start, so a connection there is refused
    (the free-port check passes) and nobody else can bind it, and listening (answering 200 to
    anything) once `take()` is called, i.e. just after that check."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", port))
        self.sock.settimeout(0.2)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._answer, daemon=True)

    def take(self) -> None:
        self.sock.listen()
        self.thread.start()

    def _answer(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    conn.recv(65536)
                    conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nsomeone else's server\n")
                except OSError:
                    pass

    def close(self) -> None:
        self.stopping.set()
        if self.thread.is_alive():
            self.thread.join(timeout=5)
        self.sock.close()


def get(port: int, path: str, body: bytes | None = None) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {} if body is None else {"Content-Type": "application/x-www-form-urlencoded"}
        conn.request("GET" if body is None else "POST", path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read().decode(errors="replace")
    finally:
        conn.close()


@pytest.mark.skipif(NGINX is None, reason="no nginx binary (scripts/bootstrap.sh installs Debian's nginx as root)")
def test_serve_takes_the_next_port_when_someone_binds_its_pick_first(private_clone: SetUp) -> None:
    clone = private_clone.clone
    assert private_clone.migrate.returncode == 0, "set-up failed: see the test above"
    public = ports_in_a_row(4)
    # serve.sh checks PORT (nginx's pick) and PORT + 1 (gunicorn's) free, then starts each:
    # someone else takes each port as serve.sh announces it is starting a server there.
    others = {public: SomeoneElse(public), public + 1: SomeoneElse(public + 1)}
    serve = subprocess.Popen(
        ["bash", "scripts/serve.sh"],
        cwd=clone,
        env=clean_env(PORT=str(public), WEB_CONCURRENCY="1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in serve.stdout or []], daemon=True).start()
    output, url_port = [], None
    try:
        while url_port is None:
            try:
                line = lines.get(timeout=90)
            except queue.Empty:
                raise AssertionError("serve.sh printed no URL within 90 s:\n" + "".join(output)) from None
            output.append(line)
            if starting := re.search(r"Starting \w+ on 127\.0\.0\.1:(\d+)", line):
                port = int(starting.group(1))
                if port in others:
                    others[port].take()
            if running := re.search(r"running at http://127\.0\.0\.1:(\d+)/", line):
                url_port = int(running.group(1))
        shown = "".join(output)
        for port in others:
            assert f"Port {port} was taken by another process" in shown, shown
        assert url_port not in others, shown
        status, page = get(url_port, "/login/")
        assert status == 200 and "csrfmiddlewaretoken" in page and "someone else" not in page, (status, page[:300])
        assert get(public, "/login/")[1] == "someone else's server\n"  # still theirs, untouched
        # nginx's workers write a body larger than their memory buffer to .var/nginx/tmp/ in the
        # private clone before they pass it on (before they could, nginx answered 500 to this).
        # 40 kB: above that buffer, below the app's limit for an anonymous request; the login
        # form then reads it whole and refuses it for want of a CSRF token.
        status, answer = get(url_port, "/login/", body=b"username=" + b"x" * 40_000)
        assert status == 403 and "CSRF" in answer, (status, answer[:300])
        nginx_log = (clone / ".var" / "nginx" / "error.log").read_text()
        assert "buffered to a temporary file" in nginx_log and "Permission denied" not in nginx_log, nginx_log
        # TERM to serve.sh alone (as `make up` stops it) stops nginx and gunicorn.
        serve.terminate()
        serve.wait(timeout=60)
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", url_port), timeout=5).close()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(serve.pid, signal.SIGKILL)  # whatever a failed assertion left running
        serve.wait(timeout=60)
        for other in others.values():
            other.close()
