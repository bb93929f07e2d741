import pytest
from django.core.exceptions import ValidationError

from factcheck.articles.models import Article, ImportBatch
from factcheck.articles.seeds import seed_articles
from factcheck.articles.services import ArticleInput, article_ingest, articles_import, content_hash, normalise_text
from factcheck.runs.models import PipelineRun, PipelineRunArticle

pytestmark = pytest.mark.django_db


def test_normalise_text_fixes_line_ends_and_unicode_form() -> None:
    assert normalise_text("  Cafe\u0301 one.  \r\nTwo.\r\n\r\n") == "Café one.\nTwo."


def test_same_text_is_one_article() -> None:
    first, created = article_ingest(data=ArticleInput(text="One claim.\r\n", outlet="A"), batch=None)
    second, created_again = article_ingest(data=ArticleInput(text="One claim.", outlet="B"), batch=None)
    assert created and not created_again
    assert first.pk == second.pk
    assert first.content_hash == content_hash("One claim.")


def test_empty_text_is_rejected() -> None:
    with pytest.raises(ValidationError):
        article_ingest(data=ArticleInput(text=" \n "), batch=None)


def test_seed_import_is_idempotent_and_queues_one_run() -> None:
    first = articles_import(source="seeds", articles=seed_articles())
    assert (first.batch.rows_read, first.batch.rows_stored, first.batch.rows_duplicate) == (3, 3, 0)
    assert first.run is not None and first.run.status == PipelineRun.Status.QUEUED
    assert set(PipelineRunArticle.objects.filter(run=first.run).values_list("article_id", flat=True)) == set(first.new_article_ids)

    again = articles_import(source="seeds", articles=seed_articles())
    assert (again.batch.rows_stored, again.batch.rows_duplicate) == (0, 3)
    assert again.run is None
    assert Article.objects.count() == 3
    assert PipelineRun.objects.count() == 1


def test_seed_metadata_names_outlets() -> None:
    articles_import(source="seeds", articles=seed_articles())
    outlets = set(Article.objects.values_list("outlet__name", flat=True))
    assert outlets == {None, "Breitbart News", "MassLive"}
    assert Article.objects.get(outlet__name="Breitbart News").author == "Warner Todd Huston"


def test_bad_rows_are_reported_and_good_ones_kept() -> None:
    result = articles_import(source="mixed", articles=[ArticleInput(text="Good one."), ArticleInput(text="   ")])
    batch = ImportBatch.objects.get(pk=result.batch.pk)
    assert (batch.rows_stored, batch.rows_rejected) == (1, 1)
    assert batch.errors == [{"row": 2, "reason": "The article has no text."}]


def test_import_seeds_command_is_safe_to_run_twice_and_retries_unprocessed_seeds() -> None:
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("import_seeds", stdout=out)
    assert "3 new" in out.getvalue() and "queued" in out.getvalue()
    # The first run never ran (no worker): a second `make up` queues the seeds again once
    # nothing is queued or running, instead of leaving them without claims.
    PipelineRun.objects.update(status=PipelineRun.Status.FAILED)
    out = StringIO()
    call_command("import_seeds", stdout=out)
    assert "0 new, 3 already stored" in out.getvalue() and "queued" in out.getvalue()
    assert PipelineRun.objects.filter(status=PipelineRun.Status.QUEUED).count() == 1
    out = StringIO()
    call_command("import_seeds", stdout=out)
    assert "nothing to do" in out.getvalue()
    assert Article.objects.count() == 3
