"""Small builders for workflow tests: a stored article with one claim in it, and the reviewer
state of its cluster (the work is the cluster's: ClaimCluster)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from factcheck.articles.services import ArticleInput, article_ingest
from factcheck.claims.models import Claim, ClaimCluster

_counter = itertools.count(1)

SENTENCE = "ICE detained nearly 1,500 people in May."

# What reviewers own: the cluster's columns, given to make_claim beside the claim's own.
STATE_FIELDS = ("status", "assignee", "assignee_id", "tags", "dismiss_reason", "version")


def split_state(fields: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The claim's own fields and its cluster's state, out of one set of keyword arguments."""
    own = {key: value for key, value in fields.items() if key not in STATE_FIELDS}
    return own, {key: value for key, value in fields.items() if key in STATE_FIELDS}


def set_cluster_state(claim: Claim, **state: Any) -> Claim:
    """Write reviewer state onto the claim's cluster (every appearance of it shows it) and
    give the claim the cluster's row as it now is."""
    if state:
        ClaimCluster.objects.filter(cluster_key=claim.cluster_id).update(**state)
    claim.cluster = ClaimCluster.objects.get(cluster_key=claim.cluster_id)
    return claim


def join_cluster(claims: Iterable[Claim], key: str) -> ClaimCluster:
    """Put the claims in the cluster `key` (its row made if there is none), as a merge would."""
    cluster, _ = ClaimCluster.objects.get_or_create(cluster_key=key)
    Claim.objects.filter(pk__in=[claim.pk for claim in claims]).update(cluster_id=key)
    return cluster


def make_claim(*, outlet: str = "MassLive", sentence: str = SENTENCE, **fields: Any) -> Claim:
    n = next(_counter)
    text = f"Story {n} opens here.\n\n{sentence} Nobody disputed it."
    article, _ = article_ingest(data=ArticleInput(text=text, outlet=outlet), batch=None)
    start = text.index(sentence)
    values: dict[str, Any] = {"score": 0.8, "priority": 50.0, "claim_type": "numeric"}
    own, state = split_state(fields)
    values.update(own)
    claim = Claim.objects.create(
        article=article,
        claim_key=f"{n:040x}",
        sentence=sentence,
        start_offset=start,
        end_offset=start + len(sentence),
        **values,
    )
    return set_cluster_state(claim, **state)
