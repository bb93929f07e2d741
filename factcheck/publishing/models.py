"""The organisation that publishes the desk's verdicts: one row, edited by an admin.

Its URL is every published ClaimReview's author URL and its public base URL is where the
fact-check pages live, so search engines and other desks attribute the verdicts by them. A
fresh install has a demo organisation (is_demo) seeded from the environment, so a desk can
approve and publish at once; everything it publishes says it is a demo until an admin names
the real organisation (factcheck/publishing/services.py).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Organisation(models.Model):
    name = models.CharField(max_length=200, help_text="Shown on the public pages and the reports.")
    url = models.URLField(max_length=500, help_text="The organisation's public site: the ClaimReview author's URL.")
    public_base_url = models.URLField(
        max_length=500, blank=True, help_text="Where the public fact-check pages live, e.g. https://factcheck.example.org (empty: this server's address)."
    )
    logo_url = models.URLField(max_length=500, blank=True, help_text="An absolute URL of the logo (ClaimReview author.logo).")
    publisher_name = models.CharField(
        max_length=200, blank=True, help_text="The publisher named in ClaimReview (empty: the organisation's name)."
    )
    # {rating value: {"label": the word readers see, "value": ClaimReview ratingValue 1..5}}
    rating_scale = models.JSONField(default=dict, blank=True)
    credit_reviewers = models.BooleanField(
        default=False, help_text="Name the verdict's author and approving editor on the public page."
    )
    is_demo = models.BooleanField(default=True, help_text="A demo organisation: every staff page and export says so.")
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "publishing_organisation"
        constraints = [models.CheckConstraint(condition=models.Q(id=1), name="publishing_organisation_one_row")]

    def __str__(self) -> str:
        return self.name

    @property
    def publisher(self) -> str:
        return self.publisher_name or self.name

    def rating_label(self, rating: str) -> str:
        """The desk's word for a rating (its ClaimReview alternateName)."""
        from factcheck.claims.models import Verdict

        return str((self.rating_scale.get(rating) or {}).get("label") or Verdict.Rating(rating).label)

    def rating_value(self, rating: str) -> int:
        """The rating's ClaimReview ratingValue, from WORST_RATING to BEST_RATING."""
        from factcheck.reports.claimreview import RATING_VALUE

        return int((self.rating_scale.get(rating) or {}).get("value") or RATING_VALUE[rating])


class Withdrawal(models.Model):
    """A published verdict taken back by an editor: its page stays at its URL and says so,
    with the reason; its ClaimReview leaves the document URL (410) and the feeds. A later
    approved revision publishes again."""

    verdict = models.OneToOneField("claims.Verdict", on_delete=models.CASCADE, related_name="withdrawal")
    reason = models.TextField(max_length=2000)
    withdrawn_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    withdrawn_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "publishing_withdrawals"

    def __str__(self) -> str:
        return f"Withdrawal of verdict {self.verdict_id}"
