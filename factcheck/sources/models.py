from __future__ import annotations

from django.conf import settings
from django.db import models

from factcheck.articles.models import Article, ImportBatch
from factcheck.factchecks.models import FactCheckImport
from factcheck.runs.models import PipelineRun


class Source(models.Model):
    """One feed of an outlet (RSS, Atom, JSON feed, news sitemap) or a section page, polled
    on its own schedule; or a fact-checker's ClaimReview feed or pages, polled into the library."""

    class Kind(models.TextChoices):
        FEED = "feed", "Feed (RSS, Atom, JSON feed or news sitemap)"
        SECTION = "section", "Section page (its article links)"
        CLAIMREVIEW_FEED = "claimreview_feed", "Fact-checker: ClaimReview feed (JSON-LD)"
        CLAIMREVIEW_PAGES = "claimreview_pages", "Fact-checker: feed of pages with ClaimReview JSON-LD"

    LIBRARY_KINDS = frozenset({Kind.CLAIMREVIEW_FEED, Kind.CLAIMREVIEW_PAGES})

    name = models.CharField(max_length=200, help_text="Outlet or fact-checker: the articles' outlet, the fact-checks' publisher.")
    kind = models.CharField(max_length=24, choices=Kind.choices, default=Kind.FEED)
    url = models.URLField(max_length=2000, unique=True)
    enabled = models.BooleanField(default=True)
    poll_minutes = models.PositiveIntegerField(default=30, help_text="Minutes between polls.")
    max_items = models.PositiveIntegerField(default=200, help_text="New items fetched per poll at most (the rest wait for the next).")
    # When the next poll is due; also the lease of a poll in flight (moved ahead when claimed).
    next_poll_at = models.DateTimeField(null=True, blank=True, db_index=True)
    polling_since = models.DateTimeField(null=True, blank=True, help_text="A poll is running since then.")
    consecutive_failures = models.PositiveIntegerField(default=0)
    last_polled_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    last_error_at = models.DateTimeField(null=True, blank=True)
    etag = models.CharField(max_length=500, blank=True)
    last_modified = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "sources"
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_kind_display()})"

    @property
    def feeds_library(self) -> bool:
        return self.kind in self.LIBRARY_KINDS

    @property
    def backing_off(self) -> bool:
        return self.consecutive_failures > 0


class SourcePoll(models.Model):
    """One poll of a source: what it found and what it stored; its articles' run."""

    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        NOT_MODIFIED = "not_modified", "Not modified"
        FAILED = "failed", "Failed"

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="polls")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    items_seen = models.PositiveIntegerField(default=0)
    items_known = models.PositiveIntegerField(default=0, help_text="Items whose article is already stored (not fetched again).")
    articles_new = models.PositiveIntegerField(default=0)
    items_failed = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True, help_text="[{url, reason}] of the items that failed.")
    error = models.TextField(blank=True, help_text="Why the poll failed, if it did.")
    import_batch = models.ForeignKey(ImportBatch, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    factcheck_import = models.ForeignKey(FactCheckImport, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    run = models.ForeignKey(PipelineRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "source_polls"
        ordering = ["-started_at", "-id"]


class ArticleKey(models.Model):
    """Every address (normalised) and text fingerprint an article was seen under: a URL
    variant, an AMP page, a syndicated copy resolve to the article already stored."""

    class Kind(models.TextChoices):
        URL = "url", "Address"
        FINGERPRINT = "text", "Text fingerprint"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    key = models.CharField(max_length=64)
    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "source_article_keys"
        constraints = [models.UniqueConstraint(fields=["kind", "key"], name="source_article_key_unique")]


class AllowedHost(models.Model):
    """A host an admin lets the fetcher reach although its address is not public (an
    intranet news site, a test server). By name only: a pasted 127.0.0.1 stays refused."""

    host = models.CharField(max_length=253, unique=True, help_text="Host name, lower case, without port.")
    note = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "source_allowed_hosts"
        ordering = ["host"]

    def __str__(self) -> str:
        return self.host


class HostSlot(models.Model):
    """When a host may be asked again: the fetchers of every worker wait their turn here."""

    host = models.CharField(max_length=300, primary_key=True)
    next_request_at = models.DateTimeField()

    class Meta:
        db_table = "source_host_slots"


class LinkSubmission(models.Model):
    """A link a reviewer pasted: fetched, extracted, stored (or recognised), then run."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        FETCHING = "fetching", "Fetching"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    url = models.URLField(max_length=2000)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True)
    article = models.ForeignKey(Article, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    already_stored = models.BooleanField(default=False, help_text="The article was stored before this link was pasted.")
    import_batch = models.ForeignKey(ImportBatch, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    run = models.ForeignKey(PipelineRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    fetching_since = models.DateTimeField(null=True, blank=True, help_text="When a worker took it; a worker that died is taken over after the task's limit.")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "source_links"
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Link #{self.pk} ({self.url[:80]})"

    @property
    def is_finished(self) -> bool:
        return self.status in {self.Status.DONE, self.Status.FAILED}
