from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models

from factcheck.articles.models import Article
from factcheck.runs.models import PipelineRun


class ClaimCluster(models.Model):
    """The same claim across articles and outlets. Maintained by the pipeline.

    cluster_key is the smallest claim_key among its members when it formed, so it is
    deterministic and survives re-runs; when two clusters merge the smaller key wins.
    """

    cluster_key = models.CharField(max_length=40, unique=True)
    size = models.PositiveIntegerField(default=1, help_text="Appearances (claims) in the cluster.")
    outlet_count = models.PositiveIntegerField(default=1, help_text="Distinct outlets (an unknown outlet counts per article).")
    first_claim = models.ForeignKey("Claim", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    first_seen_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "claim_clusters"

    def __str__(self) -> str:
        return f"Cluster {self.cluster_key[:8]} ({self.size} appearances)"


class Claim(models.Model):
    """A check-worthy sentence at an exact span of an article.

    The pipeline owns sentence/offsets/score/type/speaker; reviewers own status and
    assignment (and the annotations and verdicts hanging off the claim). The pipeline's
    merge never writes reviewer-owned columns.
    """

    class Status(models.TextChoices):
        NEW = "new", "New"
        CHECK = "check", "Check it"
        DISMISSED = "dismissed", "Dismissed"
        IN_RESEARCH = "in_research", "In research"
        DRAFTED = "drafted", "Verdict drafted"
        APPROVED = "approved", "Approved"
        RETURNED = "returned", "Returned"

    class Type(models.TextChoices):
        NUMERIC = "numeric", "Numeric / statistical"
        COMPARISON = "comparison", "Comparison or trend"
        CAUSAL = "causal", "Causal"
        QUOTE = "quote", "Quote"
        OFFICIAL_ACTION = "official_action", "Official or legal action"
        PREDICTION = "prediction", "Prediction or pledge"
        OTHER = "other", "Other"

    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="claims")
    # sha1(article content hash : start : end): stable across re-runs and databases.
    claim_key = models.CharField(max_length=40, unique=True)
    sentence = models.TextField()
    start_offset = models.PositiveIntegerField()
    end_offset = models.PositiveIntegerField()
    score = models.FloatField(default=0.0, db_index=True, help_text="Check-worthiness probability from the model.")
    claim_type = models.CharField(max_length=20, choices=Type.choices, default=Type.OTHER)
    claim_types = ArrayField(models.CharField(max_length=20), default=list, blank=True, help_text="Every matching type.")
    quantities = models.JSONField(default=list, blank=True, help_text="[{text, value, unit, hedge, start, end}]")
    speaker = models.CharField(max_length=300, blank=True)
    speaker_title = models.CharField(max_length=300, blank=True)
    attribution = models.CharField(max_length=20, blank=True, help_text="direct_quote, reported or article")
    cluster_key = models.CharField(max_length=40, blank=True, db_index=True)
    priority = models.FloatField(default=0.0, db_index=True, help_text="Queue rank: the sum of priority_parts.")
    priority_parts = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.NEW, db_index=True)
    assignee = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="assigned_claims")
    first_run = models.ForeignKey(PipelineRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    last_run = models.ForeignKey(PipelineRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Bumped by every reviewer-side write; a save carrying an older version is refused.
    version = models.PositiveIntegerField(default=1)

    class Meta:
        db_table = "claims"
        ordering = ["-priority", "id"]
        constraints = [
            models.UniqueConstraint(fields=["article", "start_offset", "end_offset"], name="claim_article_span_unique"),
            models.CheckConstraint(condition=models.Q(start_offset__lt=models.F("end_offset")), name="claim_span_nonempty"),
        ]

    def __str__(self) -> str:
        return self.sentence[:80]

    @property
    def has_number(self) -> bool:
        return bool(self.quantities)


class Annotation(models.Model):
    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="annotations")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    body = models.TextField(help_text="Markdown; sanitised when rendered.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "annotations"
        ordering = ["created_at", "id"]


class Verdict(models.Model):
    class Rating(models.TextChoices):
        TRUE = "true", "True"
        MOSTLY_TRUE = "mostly_true", "Mostly true"
        HALF_TRUE = "half_true", "Half true"
        MOSTLY_FALSE = "mostly_false", "Mostly false"
        FALSE = "false", "False"
        MISLEADING = "misleading", "Misleading"
        UNVERIFIABLE = "unverifiable", "Unverifiable"

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        APPROVED = "approved", "Approved"
        RETURNED = "returned", "Returned"

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="verdicts")
    revision = models.PositiveIntegerField(default=1)
    rating = models.CharField(max_length=16, choices=Rating.choices)
    headline = models.CharField(max_length=74)
    explanation = models.TextField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    approved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    approved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    version = models.PositiveIntegerField(default=1)

    class Meta:
        db_table = "verdicts"
        ordering = ["claim", "-revision"]
        constraints = [models.UniqueConstraint(fields=["claim", "revision"], name="verdict_claim_revision_unique")]
