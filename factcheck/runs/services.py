"""Writes for pipeline runs. The Celery task and the import services call these."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from factcheck.articles.models import ImportBatch
from factcheck.runs.models import PipelineRun, PipelineRunArticle


@transaction.atomic
def run_create(
    *,
    article_ids: Iterable[int],
    import_batch: ImportBatch | None = None,
    created_by: AbstractBaseUser | None = None,
    rerun_of: PipelineRun | None = None,
) -> PipelineRun:
    """Create a queued run over `article_ids` and enqueue it once the transaction commits."""
    from factcheck.runs.tasks import run_pipeline

    ids = sorted(set(article_ids))
    if not ids:
        raise ValueError("A pipeline run needs at least one article.")
    run = PipelineRun(
        import_batch=import_batch,
        created_by=created_by if created_by is not None and created_by.is_authenticated else None,
        rerun_of=rerun_of,
        articles_count=len(ids),
    )
    run.full_clean()
    run.save()
    PipelineRunArticle.objects.bulk_create(PipelineRunArticle(run=run, article_id=article_id) for article_id in ids)
    # Only the id travels: the worker reads everything else from PostgreSQL. The queue is
    # read at commit time so a deployment (or a test) can point runs at its own workers.
    transaction.on_commit(lambda: run_pipeline.apply_async(args=(run.pk,), queue=settings.CELERY_SPARK_QUEUE))
    return run


def run_rerun(*, run: PipelineRun, created_by: AbstractBaseUser | None = None) -> PipelineRun:
    """A new run over the same articles; the merge makes it a no-op when nothing changed."""
    article_ids = PipelineRunArticle.objects.filter(run=run).values_list("article_id", flat=True)
    return run_create(article_ids=list(article_ids), import_batch=run.import_batch, created_by=created_by, rerun_of=run)


def run_claim(*, run_id: int, worker: str, spark_master: str) -> bool:
    """Atomically move a queued run to running. False when another delivery got there first."""
    changed = PipelineRun.objects.filter(pk=run_id, status=PipelineRun.Status.QUEUED).update(
        status=PipelineRun.Status.RUNNING,
        stage="submitting",
        started_at=timezone.now(),
        worker=worker[:300],
        spark_master=spark_master[:300],
    )
    return changed == 1


def run_finish(*, run_id: int, exit_code: int, log_tail: str, error: str = "") -> None:
    """Record how spark-submit ended. Only a running run can finish."""
    succeeded = exit_code == 0 and not error
    fields: dict[str, object] = {
        "status": PipelineRun.Status.SUCCEEDED if succeeded else PipelineRun.Status.FAILED,
        "exit_code": exit_code,
        "log_tail": log_tail,
        "error": error,
        "finished_at": timezone.now(),
    }
    if succeeded:
        fields["progress"] = 1.0
    else:
        fields["stage"] = "failed"
    PipelineRun.objects.filter(pk=run_id, status=PipelineRun.Status.RUNNING).update(**fields)
