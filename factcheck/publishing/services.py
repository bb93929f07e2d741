"""Writes of the organisation: its seed from the environment and an admin's edit, each
with its audit row.

A fresh install publishes as a demo organisation (is_demo): the environment's
FACTCHECK_ORG_NAME, FACTCHECK_ORG_URL, FACTCHECK_ORG_LOGO and FACTCHECK_PUBLIC_BASE_URL only
seed the row on its first read, and the seed is a real organisation only when
FACTCHECK_ORG_URL names a public site that is not a reserved example domain. From then on
the admin page is where it changes; saving it there names the real organisation.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction

from factcheck.accounts.roles import Role, has_role
from factcheck.audit.services import audit_record
from factcheck.claims.models import Claim, Verdict
from factcheck.claims.workflow.errors import TransitionNotAllowed
from factcheck.claims.workflow.selectors import claim_cluster_ids
from factcheck.publishing.models import Organisation, Withdrawal
from factcheck.publishing.selectors import ORGANISATION_CHANGES
from factcheck.reports.claimreview import BEST_RATING, RATING_VALUE, WORST_RATING
from factcheck.reports.selectors import published_verdicts

DEMO_URL = "https://factcheck.example.org/"
LOCAL_HOSTS = frozenset({"localhost", "localhost.localdomain", "testserver"})
# RFC 2606: names kept for examples; a real organisation is never there.
EXAMPLE_DOMAINS = ("example.org", "example.com", "example.net")
AUDITED_FIELDS = ("name", "url", "public_base_url", "logo_url", "publisher_name", "rating_scale", "credit_reviewers", "is_demo")


def is_local_url(url: str) -> bool:
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if not host or host in LOCAL_HOSTS or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified or address.is_link_local


def is_example_url(url: str) -> bool:
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    return any(host == domain or host.endswith("." + domain) for domain in EXAMPLE_DOMAINS)


def default_rating_scale() -> dict[str, dict[str, Any]]:
    return {rating: {"label": str(label), "value": RATING_VALUE[rating]} for rating, label in Verdict.Rating.choices}


def rating_scale_errors(scale: dict[str, Any]) -> list[str]:
    """What is wrong with a rating scale ([] when nothing): every rating a label and a whole
    ratingValue from WORST_RATING to BEST_RATING."""
    errors = []
    for rating, label in Verdict.Rating.choices:
        step = scale.get(rating)
        if not isinstance(step, dict) or not str(step.get("label") or "").strip():
            errors.append(f"{label}: give the word readers see.")
            continue
        value = step.get("value")
        if isinstance(value, bool) or not isinstance(value, int) or not WORST_RATING <= value <= BEST_RATING:
            errors.append(f"{label}: the ClaimReview number must be a whole number from {WORST_RATING} to {BEST_RATING}, not {value!r}.")
    if not errors and scale[Verdict.Rating.TRUE]["value"] <= scale[Verdict.Rating.FALSE]["value"]:
        errors.append("True must rate higher than False.")
    unknown = sorted(set(scale) - set(Verdict.Rating.values))
    if unknown:
        errors.append(f"Unknown ratings: {', '.join(unknown)}.")
    return errors


def _state(organisation: Organisation) -> dict[str, Any]:
    return {name: getattr(organisation, name) for name in AUDITED_FIELDS}


def seed_values() -> dict[str, Any]:
    """The organisation the environment seeds: a real one only when FACTCHECK_ORG_URL names a
    public site that is not an example domain, else the demo."""
    url = settings.FACTCHECK_ORG_URL
    real = bool(url) and not is_local_url(url) and not is_example_url(url)
    return {
        "name": settings.FACTCHECK_ORG_NAME,
        "url": url if real else DEMO_URL,
        "public_base_url": settings.FACTCHECK_PUBLIC_BASE_URL,
        "logo_url": settings.FACTCHECK_ORG_LOGO,
        "rating_scale": default_rating_scale(),
        "is_demo": not real,
    }


@transaction.atomic
def organisation_seed() -> Organisation:
    """The organisation's row from the environment, once (a concurrent first read gets the
    row the other wrote)."""
    organisation = Organisation(pk=1, **seed_values())
    organisation.full_clean(validate_constraints=False)
    try:
        with transaction.atomic():
            organisation.save(force_insert=True)
    except IntegrityError:
        return Organisation.objects.get(pk=1)
    audit_record(actor=None, verb="organisation.seed", object_type="organisation", object_id=1, after=_state(organisation))
    ORGANISATION_CHANGES.changed()
    return organisation


@transaction.atomic
def organisation_update(
    *,
    actor: User,
    name: str,
    url: str,
    public_base_url: str = "",
    logo_url: str = "",
    publisher_name: str = "",
    rating_scale: dict[str, Any] | None = None,
    credit_reviewers: bool = False,
) -> Organisation:
    """An admin names the organisation (no longer a demo from then on), with its audit row."""
    if not has_role(actor, Role.ADMIN):
        raise PermissionDenied("This needs the admin role.")
    from factcheck.publishing.selectors import organisation_current

    organisation_current()
    organisation = Organisation.objects.select_for_update().get(pk=1)
    before = _state(organisation)
    errors: dict[str, list[str]] = {}
    for field, value in (("url", url), ("public_base_url", public_base_url)):
        if value and is_local_url(value):
            errors.setdefault(field, []).append(f"{value} points at this machine, which readers cannot reach.")
        elif value and is_example_url(value):
            errors.setdefault(field, []).append(f"{value} is a reserved example domain: name the organisation's real site.")
    scale = rating_scale if rating_scale is not None else organisation.rating_scale
    if scale_errors := rating_scale_errors(scale):
        errors["rating_scale"] = scale_errors
    if errors:
        raise ValidationError(errors)
    organisation.name = name.strip()
    organisation.url = url.strip()
    organisation.public_base_url = public_base_url.strip().rstrip("/")
    organisation.logo_url = logo_url.strip()
    organisation.publisher_name = publisher_name.strip()
    organisation.rating_scale = {rating: {"label": str(step["label"]).strip(), "value": step["value"]} for rating, step in scale.items()}
    organisation.credit_reviewers = credit_reviewers
    organisation.is_demo = False
    organisation.updated_by = actor
    organisation.full_clean(validate_constraints=False)
    organisation.save()
    audit_record(actor=actor, verb="organisation.update", object_type="organisation", object_id=1, before=before, after=_state(organisation))
    ORGANISATION_CHANGES.changed()
    return organisation


@transaction.atomic
def factcheck_withdraw(*, actor: User, claim: Claim, reason: str) -> Withdrawal:
    """An editor withdraws a claim's published verdict, saying why: the public page keeps its
    URL and shows the withdrawal; the ClaimReview leaves the feeds. Audited on the claim."""
    if not has_role(actor, Role.EDITOR):
        raise PermissionDenied("Withdrawing a published fact check needs the editor role.")
    reason = " ".join((reason or "").split())
    if not reason:
        raise ValidationError({"reason": ["Say why the fact check is withdrawn: readers see it."]})
    published = published_verdicts().filter(claim_id__in=claim_cluster_ids(claim=claim)).order_by("-approved_at", "-id").first()
    if published is None:
        raise TransitionNotAllowed("This claim has no published fact check to withdraw.")
    withdrawal = Withdrawal(verdict=published, reason=reason, withdrawn_by=actor)
    withdrawal.full_clean(validate_unique=False)
    try:
        # The one-to-one's unique index decides between two editors withdrawing at once.
        with transaction.atomic():
            withdrawal.save()
    except IntegrityError:
        raise TransitionNotAllowed("This fact check is already withdrawn.") from None
    audit_record(
        actor=actor, verb="verdict.withdraw", object_type="claim", object_id=claim.pk,
        before={"published_revision": published.revision}, after={"withdrawn_revision": published.revision}, comment=reason,
    )
    return withdrawal
