"""ClaimReview JSON-LD (schema.org) for a published verdict, as Google documents it.

Pure functions over plain data: the selectors gather a verdict, its claim and every
appearance of the claim's cluster; this module turns them into the document.

The rating scale (docs/exports.md): the organisation's (factcheck/publishing), which starts
from the one below and an admin may relabel and renumber. ratingValue runs from worstRating 1 (False) to
bestRating 5 (True). Misleading sits at 2 with Mostly false (what is said may be accurate,
the impression it leaves is not); Unverifiable sits at 3 with Half true, meaning "neither
shown true nor shown false". The alternateName (the desk's own word) is what tells ratings
on the same step apart, and it is what Google shows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from factcheck.claims.models import Verdict
from factcheck.claims.workflow.reviewed import claim_reviewed_default

if TYPE_CHECKING:
    from factcheck.publishing.models import Organisation

R = Verdict.Rating

WORST_RATING = 1
BEST_RATING = 5
RATING_VALUE: dict[str, int] = {
    R.FALSE: 1,
    R.MOSTLY_FALSE: 2,
    R.MISLEADING: 2,
    R.HALF_TRUE: 3,
    R.UNVERIFIABLE: 3,
    R.MOSTLY_TRUE: 4,
    R.TRUE: 5,
}
# What each rating means, shown on the public verdict page and in the README.
RATING_MEANING: dict[str, str] = {
    R.TRUE: "The claim is accurate and nothing significant is missing.",
    R.MOSTLY_TRUE: "The claim is accurate but needs clarification or additional information.",
    R.HALF_TRUE: "The claim is partially accurate but leaves out important details or takes things out of context.",
    R.MOSTLY_FALSE: "The claim contains an element of truth but ignores critical facts that would give a different impression.",
    R.FALSE: "The claim is not accurate.",
    R.MISLEADING: "The facts stated may be accurate, but the claim leaves a false impression.",
    R.UNVERIFIABLE: "The available evidence can neither confirm nor refute the claim.",
}


@dataclass(frozen=True)
class Appearance:
    """One article the claim appeared in."""

    article_id: int
    headline: str
    url: str
    published_at: datetime | None  # the article's own date, when known
    seen_at: datetime  # its publication date, or when it was imported: for ordering only, never published
    outlet: str
    outlet_domain: str


@dataclass(frozen=True)
class Citation:
    """An earlier fact-check of the same claim (a confirmed library match), cited as evidence."""

    publisher: str
    claim: str
    title: str = ""
    url: str = ""
    published_on: date | None = None
    rating: str = ""


@dataclass(frozen=True)
class ReviewSource:
    """Everything one ClaimReview is built from."""

    claim_id: int
    sentence: str
    attribution: str
    speaker: str
    speaker_title: str
    article_author: str
    outlet: str
    rating: str
    headline: str
    explanation: str
    revision: int
    first_published_at: datetime
    approved_at: datetime
    appearances: list[Appearance]  # first seen first; never empty
    first_appearance: Appearance
    citations: tuple[Citation, ...] = ()
    # The verdict's claim reviewed, as the reviewer wrote it ("" on older revisions).
    claim_reviewed: str = ""
    quantities: tuple[str, ...] = ()  # the figures' texts the pipeline found in the sentence
    # Set when an editor withdrew the published verdict (publishing.Withdrawal).
    withdrawn_at: datetime | None = None
    withdrawal_reason: str = ""

    @property
    def claim_reviewed_text(self) -> str:
        """What claimReviewed says: the reviewer's wording, or the default the verdict form
        would have offered."""
        return self.claim_reviewed or claim_reviewed_default(self.sentence, attribution=self.attribution, quantities=self.quantities)


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def _claim_author(source: ReviewSource) -> dict[str, Any] | None:
    """The speaker; for an article's own assertion, its author or else its outlet."""
    if source.speaker and not (source.attribution == "article" and source.speaker == source.outlet):
        person: dict[str, Any] = {"@type": "Person", "name": source.speaker}
        if source.speaker_title:
            person["jobTitle"] = source.speaker_title
        return person
    if source.attribution == "article" and source.article_author:
        return {"@type": "Person", "name": source.article_author}
    outlet = source.speaker or source.outlet
    if outlet:
        return {"@type": "Organization", "name": outlet}
    return None


def _appearance(appearance: Appearance) -> dict[str, Any]:
    node: dict[str, Any] = {"@type": "NewsArticle" if appearance.outlet else "CreativeWork", "headline": appearance.headline}
    if appearance.url:
        node["url"] = appearance.url
    if appearance.published_at:
        node["datePublished"] = _iso(appearance.published_at)
    if appearance.outlet:
        publisher: dict[str, Any] = {"@type": "Organization", "name": appearance.outlet}
        if appearance.outlet_domain:
            publisher["url"] = f"https://{appearance.outlet_domain}/"
        node["publisher"] = publisher
    return node


def _citation(citation: Citation) -> dict[str, Any]:
    """schema.org `citation`: a CreativeWork (the earlier fact-check) with who published it."""
    node: dict[str, Any] = {
        "@type": "CreativeWork",
        "name": citation.title or citation.claim,
        "publisher": {"@type": "Organization", "name": citation.publisher},
    }
    if citation.url:
        node["url"] = citation.url
    if citation.published_on:
        node["datePublished"] = citation.published_on.isoformat()
    if citation.rating:
        node["description"] = f"Rated “{citation.rating}”: {citation.claim}"
    return node


DEMO_DESCRIPTION = "A demo organisation: this fact check was published by a Factcheck installation that has not named its organisation yet."


def _earliest_article_date(source: ReviewSource) -> datetime | None:
    """When the claim was first published: its earliest appearance's own date (from the
    article's metadata); None when no appearance has one: the import time is no such date."""
    return min((item.published_at for item in source.appearances if item.published_at), default=None)


def claimreview_document(source: ReviewSource, *, page_url: str, organisation: Organisation) -> dict[str, Any]:
    """The ClaimReview for a published verdict; `page_url` is the public verdict page."""
    label = organisation.rating_label(source.rating)
    author: dict[str, Any] = {"@type": "Organization", "name": organisation.publisher, "url": organisation.url}
    if organisation.logo_url:
        author["logo"] = {"@type": "ImageObject", "url": organisation.logo_url}
    if organisation.is_demo:
        author["description"] = DEMO_DESCRIPTION
    claim: dict[str, Any] = {
        "@type": "Claim",
        "appearance": [_appearance(item) for item in source.appearances],
        "firstAppearance": _appearance(source.first_appearance),
    }
    if (first_published := _earliest_article_date(source)) is not None:
        claim["datePublished"] = _iso(first_published)
    if (claim_author := _claim_author(source)) is not None:
        claim["author"] = claim_author
    document: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "ClaimReview",
        "url": page_url,
        "claimReviewed": source.claim_reviewed_text,
        "headline": source.headline,
        "reviewBody": source.explanation,
        "datePublished": _iso(source.first_published_at),
        "dateModified": _iso(source.approved_at),
        "author": author,
        "reviewRating": {
            "@type": "Rating",
            "ratingValue": organisation.rating_value(source.rating),
            "bestRating": BEST_RATING,
            "worstRating": WORST_RATING,
            "alternateName": label,
            "name": label,
            "ratingExplanation": source.headline,
        },
        "itemReviewed": claim,
    }
    if source.citations:
        # Earlier fact-checks of the same claim that a reviewer confirmed: the evidence of
        # prior work, as schema.org's `citation` of a CreativeWork.
        document["citation"] = [_citation(citation) for citation in source.citations]
    return document


def json_for_script(document: Any) -> str:
    """JSON safe inside <script type="application/ld+json">: no '</script>' can close it."""
    text = json.dumps(document, ensure_ascii=False, indent=2)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
