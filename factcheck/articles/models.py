from django.conf import settings
from django.db import models


class Outlet(models.Model):
    name = models.CharField(max_length=200, unique=True)
    domain = models.CharField(max_length=253, blank=True)

    class Meta:
        db_table = "outlets"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ImportBatch(models.Model):
    class Status(models.TextChoices):
        IMPORTING = "importing", "Importing"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    source = models.CharField(max_length=500, help_text="File name, 'seeds' or 'pasted text'.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.IMPORTING)
    rows_read = models.PositiveIntegerField(default=0)
    rows_stored = models.PositiveIntegerField(default=0)
    rows_duplicate = models.PositiveIntegerField(default=0)
    rows_rejected = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True, help_text="[{row, reason}] for rejected rows.")
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

    class Meta:
        db_table = "articles"
        ordering = ["-published_at", "-id"]

    def __str__(self) -> str:
        return self.display_title

    @property
    def display_title(self) -> str:
        if self.title:
            return self.title
        first_line = self.text.split("\n", 1)[0]
        return first_line if len(first_line) <= 110 else first_line[:107].rstrip() + "…"
