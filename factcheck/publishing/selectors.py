"""Reads of the organisation: the row itself (seeded from the environment on first read) and
the copy every staff page's banner reads from the cache."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.http import Http404

from factcheck.cache import Generation
from factcheck.claims.models import Claim, Evidence, Verdict
from factcheck.publishing.models import Organisation
from factcheck.reports.claimreview import ReviewSource
from factcheck.reports.selectors import published_verdicts, review_rows, review_source_for_claim, review_sources_from_rows

# Bumped by organisation_update: the banner's cached copy is read again after a change.
ORGANISATION_CHANGES = Generation("publishing-organisation")
BANNER_CACHE_SECONDS = 300


def organisation_current() -> Organisation:
    """The organisation; a fresh install's first read seeds it (services.organisation_seed)."""
    found = Organisation.objects.filter(pk=1).first()
    if found is not None:
        return found
    from factcheck.publishing.services import organisation_seed

    return organisation_seed()


@dataclass(frozen=True)
class OrganisationBanner:
    name: str
    is_demo: bool


def organisation_banner() -> OrganisationBanner:
    """What a staff page's header says about the organisation, cached: every page shows it.
    Read only: before the first seed it says what the seed will be."""

    def compute() -> OrganisationBanner:
        row = Organisation.objects.filter(pk=1).values("name", "is_demo").first()
        if row is not None:
            return OrganisationBanner(name=row["name"], is_demo=row["is_demo"])
        from factcheck.publishing.services import seed_values

        seed = seed_values()
        return OrganisationBanner(name=seed["name"], is_demo=seed["is_demo"])

    return ORGANISATION_CHANGES.cached("publishing:banner", compute, BANNER_CACHE_SECONDS)


# --- The public pages ------------------------------------------------------------------------


@dataclass(frozen=True)
class PublicEvidence:
    title: str
    url: str
    kind: str


@dataclass(frozen=True)
class Correction:
    """An earlier published wording that a later approval replaced: what it said, and when
    the replacement was published."""

    revision: int
    rating: str
    headline: str
    claim_reviewed: str
    published_at: datetime
    replaced_at: datetime


@dataclass(frozen=True)
class PublicFactCheck:
    source: ReviewSource
    evidence: list[PublicEvidence]
    corrections: list[Correction]
    written_by: str  # "" unless the organisation credits its reviewers
    approved_by: str


def _display_name(user: User | None) -> str:
    if user is None:
        return ""
    return user.get_full_name() or user.get_username()


def public_factcheck(*, claim_id: int, organisation: Organisation) -> PublicFactCheck:
    """The access helper of the public pages: a claim's published verdict as readers see it,
    404 when it has none. Only what was approved: no draft, note, comment or history."""
    try:
        source = review_source_for_claim(claim_id=claim_id)
    except Verdict.DoesNotExist as exc:
        raise Http404("No published fact check here.") from exc
    verdict = Verdict.objects.select_related("author", "approved_by").get(claim_id=source.claim_id, revision=source.revision)
    evidence = [
        PublicEvidence(title=item.title, url=item.url, kind=str(item.get_kind_display()))
        for item in Evidence.objects.filter(verdicts=verdict).order_by("id")
    ]
    earlier = (
        Verdict.objects.filter(claim_id__in=_cluster_claim_ids(source.claim_id), status=Verdict.Status.APPROVED, approved_at__isnull=False)
        .exclude(pk=verdict.pk)
        .filter(approved_at__lte=verdict.approved_at)
        .order_by("approved_at", "id")
        .values("revision", "rating", "headline", "claim_reviewed", "approved_at")
    )
    rows = list(earlier)
    replaced = [row["approved_at"] for row in rows[1:]] + ([source.approved_at] if rows else [])
    corrections = [
        Correction(
            revision=row["revision"], rating=row["rating"], headline=row["headline"], claim_reviewed=row["claim_reviewed"],
            published_at=row["approved_at"] or source.approved_at, replaced_at=replaced_at or source.approved_at,
        )
        for row, replaced_at in zip(rows, replaced, strict=True)
    ]
    credit = organisation.credit_reviewers
    return PublicFactCheck(
        source=source,
        evidence=evidence,
        corrections=corrections,
        written_by=_display_name(verdict.author) if credit else "",
        approved_by=_display_name(verdict.approved_by) if credit else "",
    )


def _cluster_claim_ids(claim_id: int) -> list[int]:
    key = Claim.objects.filter(pk=claim_id).values_list("cluster_id", flat=True).first()
    if not key:
        return [claim_id]
    return list(Claim.objects.filter(cluster_id=key).values_list("id", flat=True))


def published_index(*, offset: int, limit: int) -> list[ReviewSource]:
    """Published fact checks, the most recently approved first, a page at a time."""
    rows = list(review_rows(published_verdicts().order_by("-approved_at", "-id"))[offset : offset + limit])
    return review_sources_from_rows(rows)


def published_count() -> int:
    return published_verdicts().count()
