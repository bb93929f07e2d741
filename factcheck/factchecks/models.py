"""The library of earlier fact-checks (imported, and the desk's own approved verdicts) and
the matches between queued claims and them.

The pipeline writes suggested matches with plain SQL (pipeline.match_store), so both tables
carry explicit names and database defaults for every column the pipeline leaves out.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models.functions import Now
from django.utils import timezone

from factcheck.articles.models import UploadProgress
from factcheck.claims.models import Claim, Verdict

# Our scale, as the ClaimReview exports write it (factcheck.reports.claimreview): 1 false .. 5 true.
SCALE_MIN = 1
SCALE_MAX = 5


class FactCheck(models.Model):
    """One fact-check in the library: a claim someone checked, and what they found."""

    class Source(models.TextChoices):
        IMPORTED = "imported", "Imported"
        DESK = "desk", "This desk"

    claim = models.TextField(help_text="The claim as checked.")
    title = models.CharField(max_length=500, blank=True, help_text="The fact-check's headline, when it has one.")
    summary = models.TextField(blank=True, help_text="A subtitle or the start of the review, when given.")
    rating_text = models.CharField(max_length=200, blank=True, help_text="The publisher's own words for its rating.")
    rating_value = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MinValueValidator(SCALE_MIN), MaxValueValidator(SCALE_MAX)],
        help_text="Our 1 (false) to 5 (true) scale; empty when the publisher's rating does not map onto it.",
    )
    publisher = models.CharField(max_length=200)
    url = models.URLField(max_length=2000, blank=True)
    published_on = models.DateField(null=True, blank=True)
    speaker = models.CharField(max_length=300, blank=True)
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.IMPORTED)
    # Unique per publisher: a re-import finds its rows by it. The desk's own: "claim:<id>".
    external_id = models.CharField(max_length=500)
    # The desk's published verdict this entry stands for (source desk); updated by each approval.
    verdict = models.ForeignKey(Verdict, null=True, blank=True, on_delete=models.SET_NULL, related_name="library_entries")
    metadata = models.JSONField(default=dict, blank=True, help_text="What the source file held beyond the fields above.")
    # The import that last created or changed it: what that import hands to the matching.
    import_batch = models.ForeignKey("FactCheckImport", null=True, blank=True, on_delete=models.SET_NULL, related_name="factchecks")
    # sha256 of the stored fields as imported: a re-import compares it to tell updated from unchanged.
    content_hash = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Set when the entry enters the library or what it says changes, in the same transaction,
    # and cleared once the queue has been matched against it (services.factchecks_match_new).
    # The message that asks for that matching may be lost (the broker down at commit): while
    # this is set, the reaper sends it again, so a new fact-check is never left unmatched.
    match_pending_since = models.DateTimeField(null=True, blank=True, default=timezone.now, db_default=Now())
    # When that message was last sent; empty: not sent yet (the reaper sends it on its next sweep).
    match_sent_at = models.DateTimeField(null=True, blank=True)
    search = models.GeneratedField(
        expression=SearchVector("claim", "title", "speaker", config="english"),
        output_field=SearchVectorField(),
        db_persist=True,
    )

    class Meta:
        db_table = "factchecks"
        ordering = ["-published_on", "-id"]
        indexes = [
            GinIndex(fields=["search"], name="factcheck_search_idx"),
            # The reaper's sweep reads only the few entries still to be matched.
            models.Index(fields=["match_pending_since"], condition=models.Q(match_pending_since__isnull=False), name="factcheck_match_pending_idx"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["publisher", "external_id"], name="factcheck_publisher_external_unique"),
            models.CheckConstraint(
                condition=models.Q(rating_value__isnull=True) | models.Q(rating_value__gte=SCALE_MIN, rating_value__lte=SCALE_MAX),
                name="factcheck_rating_value_scale",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.publisher}: {self.claim[:80]}"

    @property
    def rating_display(self) -> str:
        return self.rating_text or (f"{self.rating_value} of {SCALE_MAX}" if self.rating_value else "no rating")


class ClaimMatch(models.Model):
    """A queued claim that an earlier fact-check may have checked already.

    Columns the pipeline writes (pipeline.match_store.UPSERT_CLAIM_MATCHES): claim_id,
    factcheck_id, score, rank. Everything else has a database default. A reviewer's decision
    (status confirmed/rejected, decided_by, decided_at, version) is never overwritten by it.
    """

    class Status(models.TextChoices):
        SUGGESTED = "suggested", "Suggested"
        CONFIRMED = "confirmed", "Confirmed"
        REJECTED = "rejected", "Rejected"

    class Origin(models.TextChoices):
        ENGINE = "engine", "Suggested by the matcher"
        MANUAL = "manual", "Attached by a reviewer"

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="library_matches")
    factcheck = models.ForeignKey(FactCheck, on_delete=models.CASCADE, related_name="matches")
    score = models.FloatField(help_text="The matcher's score; higher is closer (0 for a match a reviewer attached that the matcher never suggested).")
    # A reviewer found it in the library by hand (services.claim_match_attach): the matcher missed it.
    origin = models.CharField(max_length=8, choices=Origin.choices, default=Origin.ENGINE, db_default=Origin.ENGINE)
    rank = models.PositiveSmallIntegerField(default=1, db_default=1, help_text="1 = the claim's best match.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SUGGESTED, db_default=Status.SUGGESTED)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)
    # Bumped by each decision; a decision made on an older version is refused.
    version = models.PositiveIntegerField(default=1, db_default=1)
    created_at = models.DateTimeField(auto_now_add=True, db_default=Now())
    updated_at = models.DateTimeField(auto_now=True, db_default=Now())

    class Meta:
        db_table = "claim_matches"
        ordering = ["claim", "rank", "-score"]
        indexes = [models.Index(fields=["factcheck"], name="claim_match_factcheck_idx")]
        constraints = [models.UniqueConstraint(fields=["claim", "factcheck"], name="claim_match_claim_factcheck_unique")]

    def __str__(self) -> str:
        return f"Claim {self.claim_id} ~ fact-check {self.factcheck_id} ({self.score:.3f}, {self.status})"


class FactCheckImport(UploadProgress, models.Model):
    """One import of a file into the library. As for article imports, the counters are
    written in the same transaction as each chunk, so `rows_read` is the resume point."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        IMPORTING = "importing", "Importing"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    class Layout(models.TextChoices):
        CLAIMREVIEW = "claimreview", "ClaimReview JSON-LD"
        CLAIMREVIEW_LINES = "claimreview_lines", "ClaimReview JSON lines"
        LIAR = "liar", "LIAR TSV (PolitiFact)"
        SNOPES = "snopes", "Snopes (CheckThat! vclaims)"
        UNKNOWN = "", "Not detected yet"

    source = models.CharField(max_length=500, help_text="The file name.")
    layout = models.CharField(max_length=20, choices=Layout.choices, blank=True, default=Layout.UNKNOWN)
    publisher = models.CharField(max_length=200, blank=True, help_text="Publisher for rows that name none.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    upload_name = models.CharField(max_length=200, blank=True, help_text="The stored upload under FACTCHECK_UPLOAD_DIR, until the import ends.")
    file_sha256 = models.CharField(max_length=64, blank=True, db_index=True)
    file_size = models.BigIntegerField(default=0)
    bytes_read = models.BigIntegerField(default=0)
    rows_read = models.PositiveIntegerField(default=0)
    rows_created = models.PositiveIntegerField(default=0)
    rows_updated = models.PositiveIntegerField(default=0)
    rows_unchanged = models.PositiveIntegerField(default=0)
    rows_rejected = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True, help_text="[{row, where, reason}] for rejected rows.")
    error = models.TextField(blank=True, help_text="Why the whole file failed, if it did.")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "factcheck_imports"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Fact-check import #{self.pk} ({self.source})"



class MatchIndexCache(models.Model):
    """The library's matching index, built once and kept between pipeline runs.

    Written and read only by the pipeline, with plain SQL (pipeline/sql/*_match_index.sql;
    pipeline.match_library): `key` is pipeline.nlp.matching.library_key of the library as a
    run reads it (its entries' matched fields, the engine's artifact and format), `data` the
    index's MatchIndex.to_bytes(). Any change to the library is a new key, so a run never
    uses an index of another library; damaged bytes fail their checksum and are rebuilt.
    A Spark executor on another machine gets the index from the driver, which reads it here.
    """

    key = models.CharField(max_length=64, primary_key=True)
    data = models.BinaryField()
    entries = models.PositiveIntegerField(help_text="Fact-checks in the index.")
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        db_table = "factcheck_match_indexes"

    def __str__(self) -> str:
        return f"Match index {self.key[:12]} ({self.entries} fact-checks)"


class MatchDecision(models.Model):
    """A reviewer's decision on a (claim, fact-check) pair as a label for the matcher: the
    desk's decisions teach it (factcheck.factchecks.refit). One row per decision, written by
    the service that makes it, in its transaction; a refit reads each pair's latest. It keeps
    the matching model version that was active when the decision was made (the one whose
    suggestion the reviewer saw) and the score it gave."""

    class Decision(models.TextChoices):
        CONFIRMED = "confirmed", "Confirmed"
        REJECTED = "rejected", "Rejected"
        ATTACHED = "attached", "Attached by hand"

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="+")
    factcheck = models.ForeignKey(FactCheck, on_delete=models.CASCADE, related_name="+")
    decision = models.CharField(max_length=16, choices=Decision.choices)
    same_claim = models.BooleanField(help_text="The label: the fact-check checked this claim.")
    score = models.FloatField(help_text="The matcher's score for the pair when it was decided (0 when attached by hand).")
    model_version = models.ForeignKey("learning.ModelVersion", on_delete=models.PROTECT, related_name="+")
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    decided_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "match_decisions"
        ordering = ["-decided_at", "-id"]
        indexes = [models.Index(fields=["claim", "factcheck", "-decided_at"], name="match_decision_pair_idx")]

    def __str__(self) -> str:
        return f"Claim {self.claim_id} ~ fact-check {self.factcheck_id}: {self.decision}"
