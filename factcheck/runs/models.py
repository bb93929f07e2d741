from __future__ import annotations

from django.conf import settings
from django.db import models

from factcheck.articles.models import Article, ImportBatch


class PipelineRun(models.Model):
    """One execution of the Spark claim-extraction job over a fixed set of articles.

    The Celery task owns status/exit_code/log_tail; the Spark job itself writes stage,
    progress, counts and timings (table and column names are a contract with pipeline/db.py).
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED, db_index=True)
    stage = models.CharField(max_length=32, default="queued")
    progress = models.FloatField(default=0.0)
    articles: models.ManyToManyField[Article, PipelineRunArticle] = models.ManyToManyField(
        Article, through="PipelineRunArticle", related_name="pipeline_runs"
    )
    import_batch = models.ForeignKey(ImportBatch, null=True, blank=True, on_delete=models.SET_NULL, related_name="pipeline_runs")
    rerun_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="reruns")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    spark_master = models.CharField(max_length=300, blank=True)
    worker = models.CharField(max_length=300, blank=True)
    articles_count = models.PositiveIntegerField(default=0)
    articles_done = models.PositiveIntegerField(default=0, help_text="Articles extracted so far (the job's sink counts them).")
    stage_started_at = models.DateTimeField(null=True, blank=True, help_text="When the job entered its current stage.")
    sentences_count = models.PositiveIntegerField(default=0)
    claims_count = models.PositiveIntegerField(default=0, help_text="Candidate claims the job produced.")
    claims_written = models.PositiveIntegerField(default=0, help_text="Claims inserted or changed by this run.")
    timings = models.JSONField(default=dict, blank=True, help_text="Seconds per stage, written by the job.")
    exit_code = models.IntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    log_tail = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0, help_text="Times a worker has claimed this run.")
    enqueued_at = models.DateTimeField(null=True, blank=True, help_text="When its task message was last sent; empty: not sent yet.")
    not_before = models.DateTimeField(null=True, blank=True, help_text="An automatic retry waits until then.")
    heartbeat_at = models.DateTimeField(null=True, blank=True, help_text="Last sign of life from the worker running it.")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "pipeline_runs"
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Run #{self.pk} ({self.status})"

    @property
    def stage_timings(self) -> dict[str, float]:
        """Seconds of each stage (extract, cluster, load, match, total, ...), as the run page
        shows them. The dotted keys are the stages' parts for the benches and the docs: the
        merge's steps in seconds, and the extraction's tasks (pipeline.task_profile), some of
        them counts, not seconds."""
        return {stage: seconds for stage, seconds in (self.timings or {}).items() if "." not in stage}

    @property
    def is_finished(self) -> bool:
        return self.status in {self.Status.SUCCEEDED, self.Status.FAILED}

    @property
    def waiting_for_queue(self) -> bool:
        """Queued and due, but its task message could not be sent (the broker is down)."""
        return self.status == self.Status.QUEUED and self.enqueued_at is None and self.not_before is None

    @property
    def duration_seconds(self) -> float | None:
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None


class PipelineRunArticle(models.Model):
    run = models.ForeignKey(PipelineRun, on_delete=models.CASCADE, related_name="+")
    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="+")

    class Meta:
        db_table = "pipeline_run_articles"
        constraints = [models.UniqueConstraint(fields=["run", "article"], name="run_article_unique")]
