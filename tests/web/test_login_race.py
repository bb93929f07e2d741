"""The login throttle's check and count are one step: parallel guesses cannot slip past it."""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client, override_settings
from django.urls import reverse

pytestmark = pytest.mark.django_db(transaction=True)

GUESSES = 24
LIMIT = 5


@override_settings(FACTCHECK_LOGIN_MAX_FAILURES=LIMIT)
def test_parallel_wrong_guesses_check_the_password_exactly_limit_times(reviewer, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    user_model = get_user_model()
    checks = 0
    lock = threading.Lock()
    check_password = user_model.check_password
    start = threading.Barrier(8)

    def counting_check(self, raw_password):  # type: ignore[no-untyped-def]
        nonlocal checks
        with lock:
            checks += 1
        return check_password(self, raw_password)

    monkeypatch.setattr(user_model, "check_password", counting_check)
    address = f"race-{uuid.uuid4().hex}"

    def guess(n: int) -> int:
        if n < 8:
            start.wait()  # the first eight go at once
        try:
            response = Client(REMOTE_ADDR=address).post(reverse("login"), {"username": reviewer.username, "password": f"wrong-{n}"})
            return response.status_code
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(guess, range(GUESSES)))

    assert checks == LIMIT
    assert sorted(statuses) == [200] * LIMIT + [429] * (GUESSES - LIMIT)
