"""Issue 31, item 3: a 1 GB anonymous body was written to disk before it was refused (nginx
allowed 1 GiB + 1 MiB on every path); limits are now enforced before bytes are read, by path
and role in the project's nginx, by Content-Length in the app."""

from __future__ import annotations

import socket
import time

import pytest
from django.test import Client

from factcheck.middleware import body_limits
from tests.e2e.test_slow_clients import NGINX, servers  # noqa: F401 - the fixture: gunicorn behind our nginx

GIB = 1024**3


@pytest.mark.django_db
def test_the_upload_check_nginx_asks_answers_by_role(admin_user, editor) -> None:  # type: ignore[no-untyped-def]
    assert Client().get("/upload-allowed/").status_code == 401
    editor_client, admin_client = Client(), Client()
    editor_client.force_login(editor)
    admin_client.force_login(admin_user)
    assert editor_client.get("/upload-allowed/").status_code == 403
    assert admin_client.get("/upload-allowed/").status_code == 204
    assert admin_client.post("/upload-allowed/").status_code == 405


def declared_body(port: int, path: str, length: int, cookie: str = "") -> tuple[str, float]:
    """Send only a request's headers, declaring `length` bytes of body: the status line that
    comes back without a byte of the body sent, and how long it took."""
    headers = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: {length}\r\n"
    if cookie:
        headers += f"Cookie: sessionid={cookie}\r\n"
    started = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall((headers + "\r\n").encode())
        answer = sock.recv(4096).decode("latin-1")
    return answer.split("\r\n", 1)[0], time.perf_counter() - started


@pytest.mark.e2e
@pytest.mark.skipif(NGINX is None, reason="no nginx binary (scripts/bootstrap.sh installs Debian's nginx as root)")
def test_nginx_refuses_bodies_by_path_and_role_before_reading_them(servers: tuple[int, int]) -> None:  # noqa: F811
    public_port, _ = servers
    limits = body_limits()
    # Anonymous: the login form's limit, on every path, the upload pages included.
    assert declared_body(public_port, "/login/", GIB)[0].endswith("413 Request Entity Too Large")
    assert declared_body(public_port, "/login/", limits.anonymous + 1)[0].endswith("413 Request Entity Too Large")
    assert declared_body(public_port, "/imports/upload/", GIB)[0].endswith("401 Unauthorized")
    # A session cookie (here one the app does not know): the signed-in limit elsewhere, and
    # the upload pages only once the app says this user may import, before the body is read.
    assert declared_body(public_port, "/claims/", limits.signed_in + 1, cookie="forged")[0].endswith("413 Request Entity Too Large")
    status, seconds = declared_body(public_port, "/imports/upload/", GIB, cookie="forged")
    assert status.endswith("401 Unauthorized") and seconds < 5
    assert declared_body(public_port, "/library/import/upload/", GIB, cookie="forged")[0].endswith("401 Unauthorized")
    # Over the largest upload: refused by its size alone.
    assert declared_body(public_port, "/imports/upload/", limits.upload + 1, cookie="forged")[0].endswith("413 Request Entity Too Large")


@pytest.mark.e2e
@pytest.mark.skipif(NGINX is None, reason="no nginx binary (scripts/bootstrap.sh installs Debian's nginx as root)")
def test_1100_slow_connections_from_one_client_leave_nginx_answering(servers: tuple[int, int]) -> None:  # noqa: F811
    """About 1,024 slow connections from one client used to fill nginx's only worker."""
    public_port, _ = servers
    slow: list[socket.socket] = []
    try:
        for _ in range(1100):
            sock = socket.create_connection(("127.0.0.1", public_port), timeout=5)
            sock.sendall(b"GET /login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n")  # and never the blank line
            slow.append(sock)
        started = time.perf_counter()
        with socket.create_connection(("127.0.0.1", public_port), timeout=10) as sock:
            sock.sendall(b"GET /login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            status = sock.recv(4096).decode("latin-1").split("\r\n", 1)[0]
        assert status.endswith("200 OK"), status
        print(f"\nGET /login/ beside {len(slow)} slow connections: {status} in {time.perf_counter() - started:.3f} s")
    finally:
        for sock in slow:
            sock.close()
