from datetime import datetime

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex, OpClass
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models.functions import Upper
from django.utils import timezone

from factcheck.articles.rows import EARLIEST_PUBLISHED, LATEST_PUBLISHED
from factcheck.progress import time_left_words


class Outlet(models.Model):
    name = models.CharField(max_length=200, unique=True)
    domain = models.CharField(max_length=253, blank=True)

    class Meta:
        db_table = "outlets"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class UploadProgress:
    """What an import of an uploaded file shows of its progress: the article import
    (ImportBatch) and the fact-check library's (factchecks.FactCheckImport) both mix it in."""

    status: str
    file_size: int
    bytes_read: int
    created_at: datetime
    # Both models' Status choices name these two end states.
    DONE = "done"
    FAILED = "failed"

    @property
    def is_finished(self) -> bool:
        return self.status in {self.DONE, self.FAILED}

    @property
    def percent_read(self) -> int | None:
        if self.status == self.DONE:
            return 100
        if not self.file_size:
            return None
        return min(100, int(100 * self.bytes_read / self.file_size))

    def reading_seconds_left(self, now: datetime) -> float | None:
        """The file's reading time left at its rate so far; None until there is a rate."""
        elapsed = (now - self.created_at).total_seconds()
        if self.is_finished or not self.file_size or self.bytes_read <= 0 or elapsed <= 0:
            return None
        return max(0, self.file_size - self.bytes_read) / (self.bytes_read / elapsed)

    @property
    def time_left(self) -> str:
        """The estimate in words, as the run pages give theirs."""
        return time_left_words(self.reading_seconds_left(timezone.now()))


class ImportBatch(UploadProgress, models.Model):
    """One import: a file, a ZIP of files, or pasted text.

    The row counters are written in the same transaction as each chunk of articles, so
    `rows_read` is also the resume point: the rows before it are stored or reported.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        IMPORTING = "importing", "Importing"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    class Format(models.TextChoices):
        CSV = "csv", "CSV"
        JSONL = "jsonl", "JSON Lines"
        ZIP = "zip", "ZIP of .txt/.md/.html files"
        TEXT = "text", "Pasted text"
        OTHER = "", "Other"

    source = models.CharField(max_length=500, help_text="File name, 'seeds' or 'pasted text'.")
    format = models.CharField(max_length=8, choices=Format.choices, blank=True, default=Format.OTHER)
    default_outlet = models.CharField(max_length=200, blank=True, help_text="Outlet for rows that name none.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.IMPORTING)
    upload_name = models.CharField(max_length=200, blank=True, help_text="The stored upload under FACTCHECK_UPLOAD_DIR, until the batch ends.")
    file_sha256 = models.CharField(max_length=64, blank=True, db_index=True, help_text="Identifies a re-run of the same file.")
    file_size = models.BigIntegerField(default=0)
    bytes_read = models.BigIntegerField(default=0)
    rows_read = models.PositiveIntegerField(default=0)
    rows_stored = models.PositiveIntegerField(default=0)
    rows_duplicate = models.PositiveIntegerField(default=0)
    rows_rejected = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True, help_text="[{row, reason}] for rejected rows.")
    error = models.TextField(blank=True, help_text="Why the whole file failed, if it did.")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "import_batches"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Import #{self.pk} ({self.source})"



class Article(models.Model):
    outlet = models.ForeignKey(Outlet, null=True, blank=True, on_delete=models.PROTECT, related_name="articles")
    title = models.CharField(max_length=500, blank=True)
    url = models.URLField(max_length=2000, blank=True, db_index=True)
    author = models.CharField(max_length=300, blank=True)
    published_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Normalised text (NFC, \n line ends, stripped): every claim offset points into this exact string.
    text = models.TextField()
    content_hash = models.CharField(max_length=64, unique=True, help_text="sha256 of the normalised text.")
    metadata = models.JSONField(default=dict, blank=True)
    import_batch = models.ForeignKey(ImportBatch, null=True, blank=True, on_delete=models.SET_NULL, related_name="articles")
    created_at = models.DateTimeField(auto_now_add=True)
    # Full-text search over title and text, kept by PostgreSQL itself (the queue's search).
    search = models.GeneratedField(
        expression=SearchVector("title", "text", config="english"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    # The metadata's key/value pairs as text (the SQL function article_metadata_pairs): what
    # the queue's metadata filter asks for (claims.queue.filters.metadata_q), in an array because
    # PostgreSQL counts an array's common elements and so plans the filter from how many
    # articles hold a pair; it has no such statistics for a jsonb containment.
    metadata_pairs = models.GeneratedField(
        expression=models.Func(models.F("metadata"), function="article_metadata_pairs", output_field=ArrayField(models.TextField())),
        output_field=ArrayField(models.TextField()),
        db_persist=True,
    )

    class Meta:
        db_table = "articles"
        ordering = ["-published_at", "-id"]
        indexes = [
            GinIndex(fields=["search"], name="article_search_idx"),
            # The queue's metadata filter (claims.queue.filters.metadata_q).
            GinIndex(fields=["metadata_pairs"], name="article_metadata_pairs_idx"),
            # The queue's article title filter asks UPPER(title) LIKE '%...%' (icontains): the
            # trigram index answers the substring; ANALYZE keeps statistics on the b-tree's
            # indexed expression, and with them PostgreSQL counts the matching articles right:
            # estimating one for a title matching hundreds made it sort every claim of them.
            models.Index(Upper("title"), name="article_title_upper_idx"),
            GinIndex(OpClass(Upper("title"), name="gin_trgm_ops"), name="article_title_trgm_idx"),
        ]
        constraints = [
            # The same story under one address is one article, even when its text was edited.
            models.UniqueConstraint(fields=["url"], condition=~models.Q(url=""), name="article_url_unique"),
            # What an import accepts (articles.rows), held by the table: a date Python and the
            # Spark job cannot read back (year 10000) never gets in by any path.
            models.CheckConstraint(
                condition=models.Q(published_at__isnull=True)
                | models.Q(published_at__gte=EARLIEST_PUBLISHED, published_at__lt=LATEST_PUBLISHED),
                name="article_published_at_in_range",
                violation_error_message="The publication date is outside the years an import accepts.",
            ),
        ]

    def __str__(self) -> str:
        return self.display_title

    @property
    def display_title(self) -> str:
        if self.title:
            return self.title
        first_line = self.text.split("\n", 1)[0]
        return first_line if len(first_line) <= 110 else first_line[:107].rstrip() + "…"
