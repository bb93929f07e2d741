from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeAlias

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex, OpClass
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.core.validators import MaxLengthValidator
from django.db import models
from django.db.models.functions import Upper

from factcheck.articles.models import Article
from factcheck.claims.workflow.reviewed import CLAIM_REVIEWED_MAX_CHARS
from factcheck.runs.models import PipelineRun

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

# The longest free text a person may write into each field (characters). Forms show and
# check them; the models' validators enforce them in every service (full_clean), so a
# request that skips the form is refused too. A 4.9 MB explanation once made its claim page
# time out for everyone who opened it.
NOTE_MAX_CHARS = 20_000
EXPLANATION_MAX_CHARS = 20_000
EVIDENCE_NOTE_MAX_CHARS = 2_000
REVIEW_COMMENT_MAX_CHARS = 5_000
DISMISS_REASON_MAX_CHARS = 300


# The statuses of work still to do: the queue's default view. Dismissed and approved claims
# are finished. (The order of the list is cluster_open_idx's condition.)
OPEN_STATUSES = ["new", "check", "in_research", "drafted", "returned"]


class ClaimCluster(models.Model):
    """A claim: the same claim across articles and outlets, and the unit of work.

    Every appearance (Claim) is in one: an appearance alone is a cluster of one under its own
    claim_key. cluster_key is the smallest claim_key among its members when it formed, so it
    is deterministic and survives re-runs; when two clusters merge the smaller key wins.
    The pipeline maintains its statistics (size, outlets, first and lead appearance); the
    reviewers own its state (status, assignee, tags, dismiss_reason, version), written only
    here, by the services, one row per action. A new appearance that joins the cluster simply
    has its state; the state a merged or split cluster keeps: pipeline/cluster_state.py.
    """

    class Status(models.TextChoices):
        NEW = "new", "New"
        CHECK = "check", "Check it"
        DISMISSED = "dismissed", "Dismissed"
        IN_RESEARCH = "in_research", "In research"
        DRAFTED = "drafted", "Verdict drafted"
        APPROVED = "approved", "Approved"
        RETURNED = "returned", "Returned"

    cluster_key = models.CharField(max_length=40, unique=True)
    size = models.PositiveIntegerField(default=1, help_text="Appearances (claims) in the cluster.")
    outlet_count = models.PositiveIntegerField(default=1, help_text="Distinct outlets (an unknown outlet counts per article).")
    first_claim = models.ForeignKey("Claim", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    first_seen_at = models.DateTimeField(null=True, blank=True)
    # The appearance whose wording ranks the cluster: the highest standing priority of its own.
    # Every appearance takes its parts (pipeline/sql/refresh_cluster_priorities.sql).
    lead_claim = models.ForeignKey("Claim", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)
    # Reviewer-owned. db_default because the pipeline inserts clusters without them.
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.NEW, db_default=Status.NEW)
    # Indexed by cluster_assignee_status_idx, which leads with it.
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="assigned_clusters", db_index=False
    )
    tags = ArrayField(
        models.CharField(max_length=40),
        default=list,
        db_default=models.Value([], output_field=ArrayField(models.CharField(max_length=40))),
        blank=True,
    )
    dismiss_reason = models.CharField(max_length=DISMISS_REASON_MAX_CHARS, blank=True, default="", db_default="")
    # Bumped by every reviewer-side write; a save carrying an older version is refused.
    version = models.PositiveIntegerField(default=1, db_default=1)
    # The pipeline's: the lead wording's story keys (its headline figure with each actor it
    # names) and the cluster whose wording of that figure ranks above it, which holds it back
    # (pipeline.nlp.stories, pipeline/stories_store.py).
    story_keys = ArrayField(
        models.CharField(max_length=300),
        default=list,
        db_default=models.Value([], output_field=ArrayField(models.CharField(max_length=300))),
        blank=True,
    )
    repeat_of = models.CharField(max_length=40, null=True, blank=True)

    class Meta:
        db_table = "claim_clusters"
        indexes = [
            # One status's claims, "my claims", a tag. (The default view walks the claims' stored
            # order and looks each claim's cluster up by its key.)
            models.Index(fields=["status"], name="cluster_status_idx"),
            models.Index(fields=["assignee", "status"], name="cluster_assignee_status_idx"),
            GinIndex(fields=["tags"], name="cluster_tags_idx"),
            GinIndex(fields=["story_keys"], name="cluster_story_keys_idx"),
            # The other wordings of a figure (the claim page's "Same figure"); few clusters repeat.
            models.Index(fields=["repeat_of"], name="cluster_repeat_of_idx", condition=models.Q(repeat_of__isnull=False)),
        ]
        constraints = [
            # Every claim is in a cluster, one of one included (issue 32): no "no cluster" value.
            models.CheckConstraint(condition=~models.Q(cluster_key=""), name="cluster_key_set"),
        ]

    def __str__(self) -> str:
        return f"Cluster {self.cluster_key[:8]} ({self.size} appearances)"


class ClusterSplit(models.Model):
    """A reviewer's decision that an appearance is not the claim of the cluster it was in.

    The appearance (claim_key) moved to a cluster of its own; its cluster must never join
    apart_cluster_key again. The pipeline's clustering reads these (read_cluster_splits.sql)
    and refuses any union across them, and its merge keeps apart_cluster_key pointing at
    the cluster's current key when that cluster merges into another (apply_cluster_remap.sql).
    """

    claim_key = models.CharField(max_length=40)
    apart_cluster_key = models.CharField(max_length=40)
    split_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "claim_cluster_splits"
        indexes = [
            models.Index(fields=["claim_key"], name="cluster_split_claim_idx"),
            models.Index(fields=["apart_cluster_key"], name="cluster_split_apart_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.claim_key[:8]} apart from {self.apart_cluster_key[:8]}"


class PriorityBasis(models.Model):
    """The version of the ranking weights the stored priorities were all computed with (one
    row, written by the pipeline's merge and the web app's re-rank). While it is the current
    one, a run refreshes the priorities of the claims whose clusters it changed only; when the
    weights changed and no re-rank has caught up (its task failed, or a merge read the old
    weights), the merge refreshes them all."""

    weights_version = models.PositiveIntegerField(default=0, db_default=0)

    class Meta:
        db_table = "claim_priority_basis"


class RankingWeights(models.Model):
    """The queue's ranking weights: one row (id 1), read by the PostgreSQL function
    claim_priority_parts that both the pipeline's merge and the web app's re-rank call.
    Written only by services.ranking_weights_set; seeded from ranking.DEFAULT_RANKING_WEIGHTS."""

    weights = models.JSONField()
    # Bumped by every change; each claim's priority_parts carries the version it was ranked with.
    version = models.PositiveIntegerField(default=1)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "ranking_weights"
        verbose_name_plural = "ranking weights"
        constraints = [models.CheckConstraint(condition=models.Q(id=1), name="ranking_weights_one_row")]

    def __str__(self) -> str:
        return f"Ranking weights v{self.version}"


class QueueOrderBasis(models.Model):
    """What the stored queue ranks (Claim.queue_rank) were computed with: the day recency counts
    back from and the recency weights. One row, written by services.queue_order_refresh; with
    none, PostgreSQL ranks against today and the current weights (claim_queue_basis())."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    day = models.IntegerField(help_text="The UTC day (days since 1970-01-01) recency counts back from.")
    weight = models.FloatField()
    half_life_days = models.FloatField()

    class Meta:
        db_table = "claim_queue_order_basis"
        constraints = [models.CheckConstraint(condition=models.Q(id=1), name="queue_order_basis_one_row")]


def _own_clusters(claims: Iterable[Claim]) -> None:
    """A claim written with no cluster is a cluster of one under its own key, as the pipeline's
    merge writes a claim it joined to no other (pipeline/sql/run_staged.sql); a cluster with no
    row yet gets one, new work (the pipeline's merge creates its clusters' rows itself)."""
    keys = set()
    for claim in claims:
        if not claim.cluster_id:
            claim.cluster_id = claim.claim_key
        keys.add(claim.cluster_id)
    ClaimCluster.objects.bulk_create([ClaimCluster(cluster_key=key) for key in sorted(keys)], ignore_conflicts=True)


class ClaimQuerySet(models.QuerySet["Claim"]):
    def bulk_create(self, objs: Iterable[Claim], *args: Any, **kwargs: Any) -> list[Claim]:
        objs = list(objs)
        _own_clusters(objs)
        return super().bulk_create(objs, *args, **kwargs)


class Claim(models.Model):
    """An appearance: a check-worthy sentence at an exact span of an article.

    It holds only what is its own, all written by the pipeline: text, offsets, score, type,
    speaker, article, rank. The work is its cluster's (ClaimCluster: status, assignee, tags,
    dismiss_reason, version), the same for every appearance because it is stored once. Notes,
    evidence and verdicts stay on the appearance they were written on and are read for the
    whole cluster (selectors.claim_workspace), so no merge ever moves or loses one.
    """

    objects = ClaimQuerySet.as_manager()

    # The statuses are the cluster's; named here too, as every caller speaks of a claim's status.
    Status: TypeAlias = ClaimCluster.Status

    class Type(models.TextChoices):
        NUMERIC = "numeric", "Numeric / statistical"
        COMPARISON = "comparison", "Comparison or trend"
        CAUSAL = "causal", "Causal"
        QUOTE = "quote", "Quote"
        OFFICIAL_ACTION = "official_action", "Official or legal action"
        PREDICTION = "prediction", "Prediction or pledge"
        OTHER = "other", "Other"

    # Indexed by claim_article_span_unique, which leads with it.
    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="claims", db_index=False)
    # sha1(article content hash : start : end): stable across re-runs and databases.
    claim_key = models.CharField(max_length=40)
    sentence = models.TextField()
    start_offset = models.PositiveIntegerField()
    end_offset = models.PositiveIntegerField()
    score = models.FloatField(default=0.0, db_index=True, help_text="Check-worthiness probability from the model.")
    # The check-worthiness model version whose artifacts scored this row (null: scored before
    # versions were recorded). Written by the pipeline's merge. Like first_run and last_run, a
    # key the ORM keeps (PROTECT, SET_NULL on delete) without a constraint in the database: the
    # merge writes the same run and version on each of a run's rows and checks both once
    # (pipeline.merge.RUN_REFERENCES), where the constraints checked every row at its commit.
    model_version = models.ForeignKey(
        "learning.ModelVersion", null=True, blank=True, on_delete=models.PROTECT, related_name="+", db_index=False,
        db_constraint=False,
    )
    claim_type = models.CharField(max_length=20, choices=Type.choices, default=Type.OTHER)
    claim_types = ArrayField(models.CharField(max_length=20), default=list, blank=True, help_text="Every matching type.")
    quantities = models.JSONField(default=list, blank=True, help_text="[{text, value, unit, hedge, start, end}]")
    speaker = models.CharField(max_length=300, blank=True)
    speaker_title = models.CharField(max_length=300, blank=True)
    attribution = models.CharField(max_length=20, blank=True, help_text="direct_quote, reported or article")
    # The pipeline's merge writes each claim's cluster, its own claim_key for a claim alone, and
    # the cluster's row in the same transaction (the constraint is deferred to the commit); a
    # claim written otherwise (save, bulk_create) defaults to its own key (_own_clusters).
    # Indexed by claim_cluster_key_idx.
    cluster = models.ForeignKey(
        ClaimCluster, to_field="cluster_key", db_column="cluster_key", on_delete=models.DO_NOTHING,
        related_name="appearances", db_index=False,
    )
    # pipeline.nlp.ranking.rank_signals: public_interest, topic, source, specificity, routine.
    rank_signals = models.JSONField(default=dict, db_default=models.Value({}, output_field=models.JSONField()), blank=True)
    # The sentence a reader needs to understand the claim (its subject is a pronoun); or empty.
    context = models.TextField(blank=True, default="", db_default="")
    priority = models.FloatField(
        default=0.0, help_text="Standing priority: the sum of priority_parts' points; queue_rank adds recency."
    )
    # claim_priority_parts() (migration 0015): every standing part in points, outlets, topic,
    # weights_version. Recency is in queue_rank.
    priority_parts = models.JSONField(default=dict, blank=True)
    # The queue's order: priority plus the recency points of the day the claim was seen, counted
    # back from the order's day (QueueOrderBasis). Written by PostgreSQL only: a trigger on every
    # insert and change of priority or seen_at, and services.queue_order_refresh when the day
    # turns (factcheck/claims/sql_functions/claim_queue_rank_at.sql).
    queue_rank = models.FloatField(
        default=0.0, db_default=0.0, editable=False, help_text="The queue's order: standing priority plus the recency of the claim's day."
    )
    seen_at = models.DateTimeField(null=True, blank=True, help_text="When the claim's article was published (or imported).")
    first_run = models.ForeignKey(PipelineRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_constraint=False)
    # Written by every merge and read by nothing but the ORM's SET_NULL when a run is deleted
    # (which nothing in the product does): no index to pay for on each insert.
    last_run = models.ForeignKey(
        PipelineRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_constraint=False, db_index=False
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Full-text search over the sentence and the speaker, and its phrase pairs below: kept by
    # PostgreSQL, never written by Django (it sees generated fields). In the database they are
    # plain columns since claims migration 0037: the merge inserts them as claim_staging
    # computed them during the tasks' COPY (off the merge's serial tail), and the triggers
    # claims_search_insert / claims_search_update compute them for any other insert and on
    # every change of the sentence or speaker (sql_functions/claim_search_vector.sql, the one
    # definition; this expression is what it computes).
    search = models.GeneratedField(
        expression=SearchVector("sentence", "speaker", config="english"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    # The search vector's adjacent lexemes as pairs ("deport boston"), kept by PostgreSQL
    # (claim_word_pairs, claims migration 0025): the search index holds no word positions, so
    # without this a phrase's matches are found only by reading every claim with its words.
    # Two words one stop word apart ("flood the zone") make no pair: such phrases are read as before.
    phrase_pairs = models.GeneratedField(
        expression=models.Func(SearchVector("sentence", "speaker", config="english"), function="claim_word_pairs", output_field=ArrayField(models.TextField())),
        output_field=ArrayField(models.TextField()),
        db_persist=True,
    )

    class Meta:
        db_table = "claims"
        ordering = ["-priority", "-id"]
        # Every index is paid for on each of the pipeline's inserts (tens of thousands a run):
        # no varchar_pattern_ops twins (nothing searches keys by prefix) and none that
        # repeats the leading column of another.
        indexes = [
            # The queue's order (keyset pages walk it). It carries the article and the cluster
            # of each claim: a walk under the article filters (outlet, title, metadata, dates)
            # and the cluster's state then tells the claims it passes over from the index
            # alone, without reading their rows (an index-only scan), on the pages a vacuum
            # has marked all-visible: the task after each run vacuums (pipeline.merge.
            # VACUUM_CLAIMS); after the order's refresh rewrites the ranks, autovacuum does.
            models.Index(fields=["-queue_rank", "-id"], include=["article", "cluster"], name="claim_queue_order_idx"),
            GinIndex(fields=["search"], name="claim_search_idx"),
            GinIndex(fields=["phrase_pairs"], name="claim_phrase_pairs_idx"),
            # The speaker filter is a substring of the name in any case (UPPER(speaker) LIKE
            # '%NAME%'): without trigrams nothing but a scan of every claim answers it.
            GinIndex(OpClass(Upper("speaker"), name="gin_trgm_ops"), name="claim_speaker_trgm_idx"),
            models.Index(fields=["cluster"], name="claim_cluster_key_idx"),
        ]
        constraints = [
            # The pipeline's merge inserts ON CONFLICT (claim_key).
            models.UniqueConstraint(fields=["claim_key"], name="claim_key_unique"),
            models.UniqueConstraint(fields=["article", "start_offset", "end_offset"], name="claim_article_span_unique"),
            models.CheckConstraint(condition=models.Q(start_offset__lt=models.F("end_offset")), name="claim_span_nonempty"),
        ]

    def __str__(self) -> str:
        return self.sentence[:80]

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self._state.adding or not self.cluster_id:
            _own_clusters([self])
        super().save(*args, **kwargs)

    @property
    def cluster_key(self) -> str:
        """The key of its cluster (the foreign key's own column)."""
        return self.cluster_id

    @cluster_key.setter
    def cluster_key(self, key: str) -> None:
        self.cluster_id = key

    @property
    def has_number(self) -> bool:
        return bool(self.quantities)


class Annotation(models.Model):
    """A reviewer's note on a claim, in Markdown (sanitised when rendered)."""

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="annotations")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    body = models.TextField(
        max_length=NOTE_MAX_CHARS, validators=[MaxLengthValidator(NOTE_MAX_CHARS)], help_text="Markdown; sanitised when rendered."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # The key of the form submission that added it: the same form sent twice (a double click,
    # a resent request) adds one note.
    submission_key = models.UUIDField(null=True, blank=True, editable=False)

    class Meta:
        db_table = "annotations"
        ordering = ["created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["claim", "submission_key"], name="annotation_submission_unique")]


class Evidence(models.Model):
    """A typed source a reviewer found for a claim; verdicts cite a subset of them."""

    class Kind(models.TextChoices):
        OFFICIAL_STATISTIC = "official_statistic", "Official statistic"
        COURT_RECORD = "court_record", "Court record"
        PRESS_RELEASE = "press_release", "Press release"
        NEWS_REPORT = "news_report", "News report"
        ACADEMIC_SOURCE = "academic_source", "Academic source"
        ARCHIVED_COPY = "archived_copy", "Archived copy"
        FACT_CHECK = "fact_check", "Earlier fact-check"
        OTHER = "other", "Other"

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="evidence")
    kind = models.CharField(max_length=24, choices=Kind.choices)
    url = models.URLField(max_length=2000)
    title = models.CharField(max_length=300)
    note = models.TextField(blank=True, max_length=EVIDENCE_NOTE_MAX_CHARS, validators=[MaxLengthValidator(EVIDENCE_NOTE_MAX_CHARS)])
    added_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    # As for notes: one evidence entry per form submission.
    submission_key = models.UUIDField(null=True, blank=True, editable=False)

    class Meta:
        db_table = "evidence"
        ordering = ["created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["claim", "submission_key"], name="evidence_submission_unique")]
        verbose_name_plural = "evidence"

    def __str__(self) -> str:
        return self.title


class Verdict(models.Model):
    """One revision of the desk's verdict on a claim.

    A draft (or a returned one) is edited in place; once approved it is frozen and a
    change makes revision n+1, so the history keeps every published wording. The
    claim's current verdict is its highest revision; its published one is the highest
    approved revision.
    """

    class Rating(models.TextChoices):
        TRUE = "true", "True"
        MOSTLY_TRUE = "mostly_true", "Mostly true"
        HALF_TRUE = "half_true", "Half true"
        MOSTLY_FALSE = "mostly_false", "Mostly false"
        FALSE = "false", "False"
        MISLEADING = "misleading", "Misleading"
        UNVERIFIABLE = "unverifiable", "Unverifiable"

    class Status(models.TextChoices):
        DRAFT = "draft", "Awaiting approval"
        APPROVED = "approved", "Approved"
        RETURNED = "returned", "Returned"

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="verdicts")
    revision = models.PositiveIntegerField(default=1)
    rating = models.CharField(max_length=16, choices=Rating.choices)
    headline = models.CharField(max_length=74, help_text="Under 75 characters.")
    # The claim as the desk checked it: ClaimReview's claimReviewed. Blank on revisions
    # written before the field existed; the export then falls back to the default
    # (claims.workflow.reviewed.claim_reviewed_default).
    claim_reviewed = models.CharField(
        max_length=CLAIM_REVIEWED_MAX_CHARS, blank=True, help_text="The claim as checked, under 75 characters: what the ClaimReview export names as reviewed."
    )
    explanation = models.TextField(max_length=EXPLANATION_MAX_CHARS, validators=[MaxLengthValidator(EXPLANATION_MAX_CHARS)])
    evidence = models.ManyToManyField(Evidence, blank=True, related_name="verdicts")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    # Everyone whose saves make up this revision's text: each draft and edit of it, and the
    # writers of the revision it started from (a new revision opens with the published
    # wording). The two-person rule reads this, not `author`, who is only the last to save.
    contributor_ids = ArrayField(models.BigIntegerField(), default=list, blank=True)
    approved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    approved_at = models.DateTimeField(null=True, blank=True)
    review_comment = models.TextField(
        blank=True,
        max_length=REVIEW_COMMENT_MAX_CHARS,
        validators=[MaxLengthValidator(REVIEW_COMMENT_MAX_CHARS)],
        help_text="The editor's comment when returning it.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    version = models.PositiveIntegerField(default=1)

    class Meta:
        db_table = "verdicts"
        ordering = ["claim", "-revision"]
        constraints = [models.UniqueConstraint(fields=["claim", "revision"], name="verdict_claim_revision_unique")]
        indexes = [models.Index(fields=["status", "approved_at"], name="verdict_status_approved_idx")]

    def __str__(self) -> str:
        return f"{self.get_rating_display()}: {self.headline}"

    def written_by(self, user: AbstractBaseUser | AnonymousUser) -> bool:
        """Whether `user` wrote any of this revision's text (then they may not approve or return it)."""
        return user.pk in self.contributor_ids or self.author_id == user.pk

    @staticmethod
    def not_written_by(user: AbstractBaseUser | AnonymousUser) -> models.Q:
        """written_by's rule as a query condition: the revisions `user` wrote none of."""
        return ~models.Q(contributor_ids__contains=[user.pk]) & ~models.Q(author_id=user.pk)


class SavedView(models.Model):
    """A named queue filter a user keeps: the query string of the queue URL."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_views")
    name = models.CharField(max_length=80)
    query = models.CharField(max_length=2000, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "saved_views"
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["user", "name"], name="saved_view_user_name_unique")]

    def __str__(self) -> str:
        return self.name


class BulkAction(models.Model):
    """A bulk action over a selection or a whole filtered queue, run in the background."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    action = models.CharField(max_length=16)
    params = models.JSONField(default=dict, blank=True, help_text="The action's arguments (assignee id, reason, status, tag).")
    claim_ids = models.JSONField(default=list, blank=True, help_text="The claims it applies to, fixed when it was confirmed.")
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    skipped = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "bulk_actions"
        ordering = ["-created_at"]


class TriageLabel(models.Model):
    """A reviewer's triage decision on a claim, kept as a label for the ranking model: the
    sentence, its context and what the pipeline found of it when it was decided (claim_view:
    score, type, types, attribution, signals), the decision, who and when, and the model
    version that scored the claim. One row per appearance: its latest decision. The refit
    (factcheck.claims.ranking.refit) learns from these beside our graded BBC claims."""

    class Decision(models.TextChoices):
        NOT_A_CLAIM = "not_a_claim", "Not a claim"
        NOT_WORTH_CHECKING = "not_worth_checking", "Not worth checking"
        CHECK = "check", "Check it"

    claim = models.ForeignKey("Claim", null=True, blank=True, on_delete=models.SET_NULL, related_name="triage_labels")
    # The appearance's key and article id outlive the row: the label stays when a claim goes.
    claim_key = models.CharField(max_length=40, unique=True)
    article_id = models.BigIntegerField(help_text="The claim's article: refits keep an article's labels in one fold.")
    sentence = models.TextField()
    context = models.TextField(blank=True)
    claim_view = models.JSONField(default=dict, help_text="score, claim_type, claim_types, attribution, rank_signals when decided.")
    decision = models.CharField(max_length=24, choices=Decision.choices)
    model_version = models.ForeignKey(
        "learning.ModelVersion", null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        help_text="The check-worthiness model version that scored the claim (none: scored before versions were recorded).",
    )
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    decided_at = models.DateTimeField()

    class Meta:
        db_table = "claim_triage_labels"
        ordering = ["-decided_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_decision_display()}: {self.sentence[:60]}"
