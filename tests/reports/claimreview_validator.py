"""A ClaimReview validator: Google's documented properties and the schema.org types of every node.

Google's Fact Check (ClaimReview) structured data documentation lists:

    ClaimReview  required: claimReviewed, reviewRating, url
                 recommended: author, datePublished, itemReviewed
    Claim        recommended: appearance, author, datePublished, firstAppearance
                 (here datePublished is the earliest appearance's own date, and absent
                 exactly when no appearance has one)
    Rating       required: alternateName
                 recommended: bestRating, name, ratingValue, worstRating

with these constraints: claimReviewed is best under 75 characters and must not carry the
rating; ratingValue lies between worstRating and bestRating (numbers, worst < best); url is
the absolute URL of the page hosting the fact check; the JSON-LD declares the schema.org
context. Here a missing recommended property is an error too: the desk's exports promise all
of them. On top of that every node must be a schema.org type that the property accepts and
carry only properties schema.org defines for that type. `citation` (schema.org: a CreativeWork or
Text, repeatable like any schema.org property) is how a review cites earlier fact-checks.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any
from urllib.parse import urlsplit

# schema.org: the types we accept, each with its supertypes (what a property expecting the
# supertype also accepts) and the properties it may carry (its own and inherited ones that
# matter here).
THING = {"@type", "@id", "name", "alternateName", "description", "url", "image", "sameAs", "identifier"}
CREATIVE_WORK = THING | {
    "author", "datePublished", "dateModified", "dateCreated", "headline", "publisher", "inLanguage", "text", "abstract",
    "about", "creator", "keywords", "mainEntityOfPage", "isPartOf", "citation",
}
TYPES: dict[str, tuple[set[str], set[str]]] = {
    "ClaimReview": ({"Review", "CreativeWork", "Thing"}, CREATIVE_WORK | {"claimReviewed", "reviewRating", "itemReviewed", "reviewBody", "@context"}),
    "Claim": ({"CreativeWork", "Thing"}, CREATIVE_WORK | {"appearance", "firstAppearance", "claimInterpreter"}),
    "Rating": ({"Intangible", "Thing"}, THING | {"ratingValue", "bestRating", "worstRating", "ratingExplanation", "reviewAspect", "author"}),
    "Organization": ({"Thing"}, THING | {"logo", "legalName", "email", "address"}),
    "NewsMediaOrganization": ({"Organization", "Thing"}, THING | {"logo", "legalName", "email", "address"}),
    "Person": ({"Thing"}, THING | {"jobTitle", "affiliation", "givenName", "familyName", "worksFor"}),
    "CreativeWork": ({"Thing"}, CREATIVE_WORK),
    "Article": ({"CreativeWork", "Thing"}, CREATIVE_WORK | {"articleBody", "articleSection"}),
    "NewsArticle": ({"Article", "CreativeWork", "Thing"}, CREATIVE_WORK | {"articleBody", "articleSection", "dateline"}),
    "WebPage": ({"CreativeWork", "Thing"}, CREATIVE_WORK),
    "ImageObject": ({"MediaObject", "CreativeWork", "Thing"}, CREATIVE_WORK | {"contentUrl", "width", "height"}),
}

# What each property expects: node types, or one of the literal kinds "text", "url",
# "date", "number". A property not listed here is only checked for being allowed.
EXPECTS: dict[str, set[str]] = {
    "claimReviewed": {"text"},
    "reviewRating": {"Rating"},
    "itemReviewed": {"Claim"},
    "url": {"url"},
    "name": {"text"},
    "alternateName": {"text"},
    "headline": {"text"},
    "reviewBody": {"text"},
    "ratingExplanation": {"text"},
    "jobTitle": {"text"},
    "datePublished": {"date"},
    "dateModified": {"date"},
    "author": {"Organization", "Person"},
    "publisher": {"Organization", "Person"},
    "appearance": {"url", "CreativeWork"},
    "firstAppearance": {"url", "CreativeWork"},
    "logo": {"url", "ImageObject"},
    "citation": {"CreativeWork", "text"},
    "description": {"text"},
    "ratingValue": {"number"},
    "bestRating": {"number"},
    "worstRating": {"number"},
}
# Properties that may hold a list (the rest take a single value).
REPEATABLE = {"appearance", "author", "sameAs", "citation"}

REQUIRED = {"ClaimReview": ("claimReviewed", "reviewRating", "url"), "Rating": ("alternateName",)}
RECOMMENDED = {
    "ClaimReview": ("author", "datePublished", "itemReviewed"),
    "Claim": ("appearance", "author", "datePublished", "firstAppearance"),
    "Rating": ("bestRating", "name", "ratingValue", "worstRating"),
}
CLAIM_REVIEWED_MAX = 74  # "less than 75 characters"
RATING_WORDS = ("true", "mostly true", "half true", "mostly false", "false", "misleading", "unverifiable", "pants on fire")


def _is_a(node_type: str, expected: str) -> bool:
    return node_type == expected or expected in TYPES.get(node_type, (set(), set()))[0]


def _is_url(value: Any) -> bool:
    if not isinstance(value, str) or value != value.strip():
        return False
    parts = urlsplit(value)
    return parts.scheme in {"http", "https"} and bool(parts.netloc)


def _is_date(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        if "T" in value:
            parsed = datetime.fromisoformat(value)
            return parsed.tzinfo is not None  # a date-time without a zone is ambiguous
        date.fromisoformat(value)
        return True
    except ValueError:
        return False


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_value(value: Any, expected: set[str], path: str, problems: list[str]) -> None:
    if isinstance(value, dict):
        node_type = value.get("@type")
        if not isinstance(node_type, str):
            problems.append(f"{path}: a node without a @type")
            return
        if not any(_is_a(node_type, kind) for kind in expected if kind[0].isupper()):
            problems.append(f"{path}: {node_type} where schema.org expects {' or '.join(sorted(expected))}")
        _check_node(value, path, problems)
        return
    if "text" in expected and isinstance(value, str) and value.strip():
        return
    if "url" in expected and _is_url(value):
        return
    if "date" in expected and _is_date(value):
        return
    if "number" in expected and _is_number(value):
        return
    problems.append(f"{path}: {value!r} is not a valid {' or '.join(sorted(expected))}")


def _check_node(node: dict[str, Any], path: str, problems: list[str]) -> None:
    node_type = node.get("@type")
    if node_type not in TYPES:
        problems.append(f"{path}: unknown or unsupported schema.org type {node_type!r}")
        return
    allowed = TYPES[node_type][1]
    for name, value in node.items():
        here = f"{path}.{name}"
        if name not in allowed:
            problems.append(f"{here}: not a schema.org property of {node_type}")
            continue
        if name.startswith("@"):
            continue
        if isinstance(value, list):
            if name not in REPEATABLE:
                problems.append(f"{here}: takes one value, got a list")
            if not value:
                problems.append(f"{here}: an empty list")
            for index, item in enumerate(value):
                _check_value(item, EXPECTS.get(name, {"text", "url", "Thing"}), f"{here}[{index}]", problems)
        elif name in EXPECTS:
            _check_value(value, EXPECTS[name], here, problems)
    for name in REQUIRED.get(node_type, ()):
        if name not in node:
            problems.append(f"{path}: missing required property {name}")
    for name in RECOMMENDED.get(node_type, ()):
        if name not in node and not (node_type == "Claim" and name == "datePublished"):
            problems.append(f"{path}: missing recommended property {name}")
    if node_type == "Claim":
        _check_claim_date(node, path, problems)
    if node_type == "Rating":
        _check_rating(node, path, problems)
    if node_type == "Person" and not node.get("name"):
        problems.append(f"{path}: a Person needs a name")
    if _is_a(node_type, "Organization") and not node.get("name"):
        problems.append(f"{path}: an Organization needs a name")


def _appearance_dates(claim: dict[str, Any]) -> list[datetime]:
    found = []
    for item in claim.get("appearance") or []:
        if isinstance(item, dict) and _is_date(item.get("datePublished")):
            found.append(datetime.fromisoformat(item["datePublished"]))
    return found


def _check_claim_date(claim: dict[str, Any], path: str, problems: list[str]) -> None:
    """A Claim dates from its earliest appearance's own date; with none known it has no date
    (an invented one, such as when the article was imported, is worse than none)."""
    dates = _appearance_dates(claim)
    stated = claim.get("datePublished")
    if not dates:
        if stated is not None:
            problems.append(f"{path}.datePublished: {stated!r} though no appearance has a date of its own")
        return
    if stated is None:
        problems.append(f"{path}: missing recommended property datePublished (its appearances have dates)")
    elif _is_date(stated) and "T" in stated and datetime.fromisoformat(stated) != min(dates):
        problems.append(f"{path}.datePublished: {stated} is not its earliest appearance's date {min(dates).isoformat()}")


def _check_rating(rating: dict[str, Any], path: str, problems: list[str]) -> None:
    value, best, worst = rating.get("ratingValue"), rating.get("bestRating"), rating.get("worstRating")
    if not all(_is_number(x) for x in (value, best, worst)):
        return  # reported as missing or mistyped already
    if not worst < best:
        problems.append(f"{path}: worstRating {worst} must be below bestRating {best}")
    if not worst <= value <= best:
        problems.append(f"{path}: ratingValue {value} outside [{worst}, {best}]")
    if worst < 1:
        problems.append(f"{path}: worstRating must be 1 or more")
    if rating.get("name") and rating.get("alternateName") and rating["name"] != rating["alternateName"]:
        problems.append(f"{path}: name and alternateName disagree ({rating['name']!r} / {rating['alternateName']!r})")


def _check_claim_reviewed(document: dict[str, Any], problems: list[str]) -> None:
    text = document.get("claimReviewed")
    if not isinstance(text, str):
        return
    if len(text) > CLAIM_REVIEWED_MAX:
        problems.append(f"claimReviewed: {len(text)} characters, Google asks for under 75")
    rating = document.get("reviewRating") or {}
    label = str(rating.get("alternateName") or "").lower()
    lowered = text.lower().strip()
    # The rating must not be folded into the claim ("False: ...", "... (Mostly true)").
    for word in {label, *RATING_WORDS} - {""}:
        if re.match(rf"^[\[(]?{re.escape(word)}[\])]?\s*[:\-–—|]", lowered) or re.search(rf"[:\-–—|(\[]\s*{re.escape(word)}[\])]?$", lowered):
            problems.append(f"claimReviewed: carries the rating {word!r}; the rating belongs in reviewRating")


def claimreview_problems(document: Any, *, page_url: str | None = None) -> list[str]:
    """Everything wrong with a ClaimReview JSON-LD document (an empty list when it is valid).
    `page_url`: the page hosting it, whose domain the review's url must share."""
    if not isinstance(document, dict):
        return ["the document is not a JSON object"]
    problems: list[str] = []
    context = document.get("@context")
    if context not in ("https://schema.org", "http://schema.org", "https://schema.org/", "http://schema.org/"):
        problems.append(f"@context: {context!r}, Google reads only the schema.org context")
    if document.get("@type") != "ClaimReview":
        problems.append(f"@type: {document.get('@type')!r}, expected ClaimReview")
        return problems
    _check_node(document, "ClaimReview", problems)
    _check_claim_reviewed(document, problems)
    if page_url and _is_url(document.get("url")):
        review_host = urlsplit(document["url"]).hostname or ""
        page_host = urlsplit(page_url).hostname or ""
        if not (review_host == page_host or review_host.endswith("." + page_host)):
            problems.append(f"url: {review_host} is not the page's domain {page_host}")
    return problems


def assert_valid_claimreview(document: Any, *, page_url: str | None = None) -> None:
    problems = claimreview_problems(document, page_url=page_url)
    assert not problems, "Invalid ClaimReview:\n  " + "\n  ".join(problems)
