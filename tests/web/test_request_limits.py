"""Hostile request bodies: refused by their declared length before anything reads them."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from factcheck.articles.models import ImportBatch
from tests.conftest import PERSONA_PASSWORD

pytestmark = pytest.mark.django_db


class UnreadableBody(io.RawIOBase):
    """A request body that fails the test if anyone reads from it."""

    read_from = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        UnreadableBody.read_from = True
        raise AssertionError("the body was read")


def post_declaring(client: Client, path: str, length: int, content_type: str = "multipart/form-data; boundary=x") -> int:
    UnreadableBody.read_from = False
    response = client.generic("POST", path, b"", content_type=content_type, CONTENT_LENGTH=str(length), **{"wsgi.input": UnreadableBody()})
    return response.status_code


def logged_in(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


@pytest.mark.parametrize("path", ["/login/", "/admin/login/", "/api/v1/claims/", "/claims/"])
def test_anonymous_gigabyte_post_is_refused_unread(path: str) -> None:
    assert post_declaring(Client(), path, 1_150_000_000) == 413
    assert not UnreadableBody.read_from


def test_anonymous_small_post_still_reaches_the_login_form(reviewer) -> None:  # type: ignore[no-untyped-def]
    response = Client().post("/login/", {"username": reviewer.username, "password": PERSONA_PASSWORD})
    assert response.status_code == 302


def test_signed_in_limit_is_the_form_limit_and_uploads_are_for_admins(settings, reviewer, editor, admin_user) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_UPLOAD_MAX_BYTES = 10 * 1024**2
    upload = reverse("articles:upload")
    over_forms = settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 2 * 1024**2
    for user in (reviewer, editor):
        assert post_declaring(logged_in(user), upload, over_forms) == 413
    admin = logged_in(admin_user)
    assert post_declaring(admin, reverse("claims:list"), over_forms, content_type="application/x-www-form-urlencoded") == 413
    # An admin's upload up to the upload limit gets through to the view (which reads it) ...
    small = admin.post(upload, {"file": SimpleUploadedFile("a.csv", b"title,text\nA,Spending rose 5%.\n"), "outlet": ""})
    assert small.status_code == 302
    # ... and one declared over it is refused before a byte of it is read.
    assert post_declaring(admin, upload, settings.FACTCHECK_UPLOAD_MAX_BYTES + 2 * 1024**2) == 413
    assert not UnreadableBody.read_from
    assert ImportBatch.objects.count() == 1


def test_a_malformed_content_length_is_a_400() -> None:
    assert post_declaring(Client(), "/login/", 0, content_type="text/plain") != 413
    response = Client().generic("POST", "/login/", b"", CONTENT_LENGTH="12abc")
    assert response.status_code == 400
