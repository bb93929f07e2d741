"""The reviewer state a cluster keeps when clusters merge or an appearance is split out: the
one rule, for the pipeline's merge (pipeline.merge.unify_clusters) and the web app's split
(factcheck.claims.workflow.services.claim_split).

The state is the cluster's (status, assignee, tags, dismiss reason, version: the claim_clusters
row, factcheck.claims.models.ClaimCluster), so a new appearance that joins a cluster simply
has it. When a run merges clusters (apply_cluster_remap.sql), the surviving cluster takes one
state made from theirs (merged_state):

- clusters nobody worked on (new, unassigned, untagged, no dismiss reason) take the state of
  the others at its version: nothing changed for whoever has those open, so no page goes
  stale, and a cluster of new appearances merging into an approved claim shows it approved;
- two clusters that both carry reviewers' work take the most advanced status
  (STATUS_PRECEDENCE) with its assignee and dismiss reason (ties: the worked state before an
  untouched one, then the higher version, then the cluster seen first), every tag of both, and
  a version above both, so a page open on either side is refused and reloads; the merge
  audits it ("cluster.merge").

An appearance split out of its cluster starts a cluster of its own as new work (SPLIT_OUT):
the cluster's decisions were not about it.

Plain Python with no Django: the pipeline never imports Django, and the web app imports this.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# Most advanced first: which status a cluster keeps when two clusters with reviewers' work
# merge. Every status of factcheck.claims.models.ClaimCluster.Status, once (a test checks).
STATUS_PRECEDENCE: tuple[str, ...] = ("approved", "drafted", "returned", "in_research", "check", "dismissed", "new")


@dataclass(frozen=True)
class ReviewState:
    """What reviewers own on a cluster, less its version."""

    status: str
    assignee_id: int | None
    tags: tuple[str, ...]
    dismiss_reason: str

    @property
    def untouched(self) -> bool:
        """Nobody has worked on it: what a new cluster starts with."""
        return self.status == "new" and self.assignee_id is None and not self.tags and not self.dismiss_reason


# An appearance split out of its cluster: new, unassigned, untagged, no reason.
SPLIT_OUT = ReviewState(status="new", assignee_id=None, tags=(), dismiss_reason="")


@dataclass(frozen=True)
class ClusterState:
    """One of the clusters that merge: its state and version, and its first appearance's id
    (the order ties fall in, and where the merge's audit row goes)."""

    first_id: int
    state: ReviewState
    version: int


@dataclass(frozen=True)
class MergedState:
    """The state the merged cluster keeps, and what it was made of."""

    state: ReviewState
    version: int
    first_id: int  # the merged cluster's first appearance: where the merge's audit row goes
    # The distinct states reviewers' work left on the clusters (with their versions), most
    # advanced first: two or more with different work is a merge of work, audited.
    worked: tuple[tuple[ReviewState, int], ...]
    unified_work: bool


def _precedence(status: str) -> int:
    return STATUS_PRECEDENCE.index(status)


def merged_state(clusters: Iterable[ClusterState]) -> MergedState | None:
    """The one state of clusters that merge (module docstring); None when they all agree
    already (state and version): then the merged cluster keeps that state as it is."""
    members = sorted(clusters, key=lambda c: c.first_id)
    if len({(c.state, c.version) for c in members}) < 2:
        return None
    winner = min(members, key=lambda c: (_precedence(c.state.status), c.state.untouched, -c.version, c.first_id))
    others = sorted({tag for c in members for tag in c.state.tags} - set(winner.state.tags))
    worked_states = {c.state for c in members if not c.state.untouched}
    worked = sorted(
        {(c.state, c.version) for c in members if not c.state.untouched},
        key=lambda s: (_precedence(s[0].status), -s[1], s[0].assignee_id or 0, s[0].tags, s[0].dismiss_reason),
    )
    unified_work = len(worked_states) > 1
    return MergedState(
        state=ReviewState(
            status=winner.state.status,
            assignee_id=winner.state.assignee_id,
            tags=winner.state.tags + tuple(others),
            dismiss_reason=winner.state.dismiss_reason,
        ),
        version=max(c.version for c in members) + (1 if unified_work else 0),
        first_id=members[0].first_id,
        worked=tuple(worked),
        unified_work=unified_work,
    )
