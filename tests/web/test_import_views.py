"""Import pages. admin: may import. editor, reviewer, outsider: 403. Anonymous: to the login page."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from factcheck.articles import services, tasks
from factcheck.articles.models import Article, ImportBatch
from factcheck.runs.models import PipelineRun
from tests.conftest import PERSONA_PASSWORD

pytestmark = pytest.mark.django_db

CSV = b"title,text,url\nOne,First article text.,https://ex.com/1\nTwo,Second article text.,\n,,\n"


@pytest.fixture(autouse=True)
def upload_dir(settings, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_UPLOAD_DIR = tmp_path / "uploads"
    return settings.FACTCHECK_UPLOAD_DIR


def logged_in(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


def upload(client: Client, content: bytes = CSV, name: str = "news.csv", **extra: str):  # type: ignore[no-untyped-def]
    return client.post(reverse("articles:upload"), {"file": SimpleUploadedFile(name, content, content_type="text/csv"), **extra})


@pytest.fixture
def queued_tasks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[tuple[int, ...], str]]:
    sent: list[tuple[tuple[int, ...], str]] = []
    monkeypatch.setattr(tasks.import_batch_run, "apply_async", lambda args, queue: sent.append((args, queue)))
    return sent


# --- Access -------------------------------------------------------------------------------


def test_anonymous_goes_to_login(client: Client) -> None:
    response = client.get(reverse("articles:new"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    response = upload(client)
    assert response.status_code == 302 and not ImportBatch.objects.exists()


@pytest.mark.parametrize("persona", ["reviewer", "editor", "outsider"])
def test_only_admins_may_import(request: pytest.FixtureRequest, persona: str) -> None:
    client = logged_in(request.getfixturevalue(persona))
    batch = ImportBatch.objects.create(source="x.csv", format="csv")
    assert client.get(reverse("articles:new")).status_code == 403
    assert upload(client).status_code == 403
    assert client.post(reverse("articles:paste"), {"text": "Some text."}).status_code == 403
    assert client.get(reverse("articles:detail", args=[batch.pk])).status_code == 403
    assert client.get(reverse("articles:errors", args=[batch.pk])).status_code == 403
    assert client.post(reverse("articles:resume", args=[batch.pk])).status_code == 403
    assert ImportBatch.objects.count() == 1 and not Article.objects.exists()


def test_wrong_methods_are_refused(admin_user) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(admin_user)
    batch = ImportBatch.objects.create(source="x.csv", format="csv")
    assert client.post(reverse("articles:new")).status_code == 405
    assert client.get(reverse("articles:upload")).status_code == 405
    assert client.get(reverse("articles:paste")).status_code == 405
    assert client.post(reverse("articles:detail", args=[batch.pk])).status_code == 405
    assert client.get(reverse("articles:resume", args=[batch.pk])).status_code == 405


def test_missing_batch_is_404(admin_user) -> None:  # type: ignore[no-untyped-def]
    assert logged_in(admin_user).get(reverse("articles:detail", args=[999999])).status_code == 404


# --- Upload -------------------------------------------------------------------------------


def test_admin_page_links_to_upload(admin_user) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(admin_user)
    changelist = client.get(reverse("admin:articles_importbatch_changelist")).content.decode()
    assert f'href="{reverse("articles:new")}"' in changelist
    page = client.get(reverse("articles:new"))
    assert page.status_code == 200
    assert 'enctype="multipart/form-data"' in page.content.decode()


def test_small_upload_imports_now_and_queues_the_pipeline(admin_user, upload_dir: Path, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(admin_user)
    with django_capture_on_commit_callbacks() as callbacks:
        response = upload(client, outlet="Daily")
    batch = ImportBatch.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("articles:detail", args=[batch.pk])
    assert (batch.status, batch.rows_read, batch.rows_stored, batch.rows_rejected) == (ImportBatch.Status.DONE, 3, 2, 1)
    assert batch.created_by == admin_user and batch.source == "news.csv"
    assert set(Article.objects.values_list("outlet__name", flat=True)) == {"Daily"}
    run = PipelineRun.objects.get(import_batch=batch)
    assert run.articles_count == 2 and run.created_by == admin_user
    assert len(callbacks) == 1  # the pipeline run, sent after commit
    assert batch.upload_name == "" and list(upload_dir.iterdir()) == []  # the upload is gone

    page = client.get(response["Location"]).content.decode()
    assert "Summary" in page and "2 stored, 0 duplicates, 1 rejected" in page
    assert "hx-get" in page  # the pipeline run is still queued: the page keeps polling
    assert "The article has no text." in page


def test_large_upload_goes_to_celery_with_the_batch_id_only(  # type: ignore[no-untyped-def]
    admin_user, settings, upload_dir: Path, queued_tasks, django_capture_on_commit_callbacks
) -> None:
    settings.FACTCHECK_IMPORT_INLINE_MAX_BYTES = 10
    settings.CELERY_TASK_DEFAULT_QUEUE = "imports-test"
    client = logged_in(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client)
    batch = ImportBatch.objects.get()
    assert batch.status == ImportBatch.Status.QUEUED and not Article.objects.exists()
    assert queued_tasks == [((batch.pk,), "imports-test")]
    stored = upload_dir / batch.upload_name
    assert stored.read_bytes() == CSV

    progress = client.get(response["Location"], headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in progress and 'hx-trigger="every 2s"' in progress and "Queued" in progress

    tasks.import_batch_run(batch.pk)
    tasks.import_batch_run(batch.pk)  # a second delivery finds it done and does nothing
    batch.refresh_from_db()
    assert (batch.status, batch.rows_stored) == (ImportBatch.Status.DONE, 2)
    assert not stored.exists() and PipelineRun.objects.filter(import_batch=batch).count() == 1


def test_upload_of_unsupported_or_oversize_file_is_refused(admin_user, settings) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(admin_user)
    response = upload(client, b"%PDF", name="paper.pdf")
    assert response.status_code == 400 and "Unsupported file type" in response.content.decode()
    settings.FACTCHECK_UPLOAD_MAX_BYTES = 10
    response = upload(client)
    assert response.status_code == 400 and "larger than" in response.content.decode()
    assert not ImportBatch.objects.exists()


def test_upload_of_broken_file_shows_why(admin_user) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(admin_user)
    response = upload(client, b"PK\x03\x04 not really a zip", name="pages.zip")
    batch = ImportBatch.objects.get()
    assert batch.status == ImportBatch.Status.FAILED
    page = client.get(response["Location"]).content.decode()
    assert "Not a readable ZIP file" in page and "hx-get" not in page


# --- Paste ----------------------------------------------------------------------------------


def test_paste_one_article(admin_user) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(admin_user)
    response = client.post(reverse("articles:paste"), {"text": "Crime fell 12% last year.", "title": "Crime", "published_at": "2024-05-31"})
    article = Article.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("articles:detail", args=[article.import_batch_id])
    assert article.title == "Crime" and PipelineRun.objects.filter(import_batch_id=article.import_batch_id).exists()


def test_paste_with_bad_date_shows_the_form_again(admin_user) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(admin_user)
    response = client.post(reverse("articles:paste"), {"text": "Crime fell.", "published_at": "last week"})
    assert response.status_code == 400 and "Bad date" in response.content.decode()
    assert not ImportBatch.objects.exists()


# --- Batch page, error report, resume ---------------------------------------------------------


def test_batch_page_query_count_and_error_report(admin_user, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(admin_user)
    upload(client, b"text,published_at\n,\nOk.,2024-99-01\n\"Quoted, fine.\",\n")
    batch = ImportBatch.objects.get()
    with django_assert_max_num_queries(8):
        assert client.get(reverse("articles:detail", args=[batch.pk])).status_code == 200
    response = client.get(reverse("articles:errors", args=[batch.pk]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"] == f'attachment; filename="import-{batch.pk}-errors.csv"'
    lines = list(csv.reader(io.StringIO(response.content.decode())))
    assert lines[0] == ["row", "where", "reason"]
    assert lines[1] == ["1", "line 2", "The article has no text."]
    assert lines[2][:2] == ["2", "line 3"] and lines[2][2].startswith("Bad date '2024-99-01'")
    assert len(lines) == 3


def test_error_report_escapes_formula_cells(admin_user) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(admin_user)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as members:
        members.writestr("ok.txt", "Crime fell.")
        members.writestr('=HYPERLINK("http://evil.example").pdf', "x")
    upload(client, archive.getvalue(), name="pages.zip")
    batch = ImportBatch.objects.get()
    lines = list(csv.reader(io.StringIO(client.get(reverse("articles:errors", args=[batch.pk])).content.decode())))
    assert lines[1] == ["2", "'=HYPERLINK(\"http://evil.example\").pdf", "Unsupported file type '.pdf': use .txt, .md or .html."]


def test_resume_a_failed_import(admin_user, upload_dir: Path, queued_tasks) -> None:  # type: ignore[no-untyped-def]
    upload_dir.mkdir(parents=True)
    (upload_dir / "kept.csv").write_bytes(CSV)
    batch = ImportBatch.objects.create(
        source="news.csv", format="csv", status=ImportBatch.Status.FAILED, upload_name="kept.csv", error="Stopped after row 0"
    )
    client = logged_in(admin_user)
    assert "Resume the import" in client.get(reverse("articles:detail", args=[batch.pk])).content.decode()
    response = client.post(reverse("articles:resume", args=[batch.pk]))
    assert response.status_code == 302
    batch.refresh_from_db()
    assert (batch.status, batch.error) == (ImportBatch.Status.QUEUED, "")
    services.import_batch_process(batch_id=batch.pk)
    batch.refresh_from_db()
    assert batch.status == ImportBatch.Status.DONE and batch.rows_stored == 2

    again = client.post(reverse("articles:resume", args=[batch.pk]), follow=True)
    assert "Only a failed import" in again.content.decode()
