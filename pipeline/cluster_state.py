"""The reviewer state a cluster keeps when clusters merge or an appearance is split out: the
one rule, for the pipeline's merge (pipeline.merge.unify_clusters) and the web app's split
(factcheck.claims.services.claim_split).

Every appearance of a cluster carries the same reviewer state (status, assignee, tags,
dismiss reason, version: factcheck.claims.models.Claim). When a run puts appearances with
different states in one cluster (a new appearance joins a worked cluster, or two stored
clusters merge), the cluster takes one state (merged_state):

- appearances nobody worked on (new, unassigned, untagged, no dismiss reason) take the state
  of the rest of the cluster at its version: nothing changed for whoever has those open, so
  no page goes stale, and a new appearance of an approved claim shows it approved;
- two clusters that both carry reviewers' work take the most advanced status
  (STATUS_PRECEDENCE) with its assignee and dismiss reason (ties: the worked state before an
  untouched one, then the higher version, then the first appearance), every tag of both, and
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
# merge. Every status of factcheck.claims.models.Claim.Status, once (a test checks).
STATUS_PRECEDENCE: tuple[str, ...] = ("approved", "drafted", "returned", "in_research", "check", "dismissed", "new")


@dataclass(frozen=True)
class ReviewState:
    """What reviewers own on an appearance; the same on every appearance of a cluster."""

    status: str
    assignee_id: int | None
    tags: tuple[str, ...]
    dismiss_reason: str

    @property
    def untouched(self) -> bool:
        """Nobody has worked on it: what the merge inserts a new appearance with."""
        return self.status == "new" and self.assignee_id is None and not self.tags and not self.dismiss_reason


# An appearance split out of its cluster: new, unassigned, untagged, no reason.
SPLIT_OUT = ReviewState(status="new", assignee_id=None, tags=(), dismiss_reason="")


@dataclass(frozen=True)
class Appearance:
    id: int
    state: ReviewState
    version: int


@dataclass(frozen=True)
class MergedState:
    """The state every appearance of a cluster takes, and what it was made of."""

    state: ReviewState
    version: int
    first_id: int  # the cluster's first appearance: where the merge's audit row goes
    # The distinct states reviewers' work left on the appearances (with their versions), most
    # advanced first: two or more with different work is a merge of work, audited.
    worked: tuple[tuple[ReviewState, int], ...]
    unified_work: bool


def _precedence(status: str) -> int:
    return STATUS_PRECEDENCE.index(status)


def merged_state(appearances: Iterable[Appearance]) -> MergedState | None:
    """The one state of a cluster whose appearances differ (module docstring); None when they
    all agree already (state and version), so nothing is written."""
    members = sorted(appearances, key=lambda a: a.id)
    if len({(a.state, a.version) for a in members}) < 2:
        return None
    winner = min(members, key=lambda a: (_precedence(a.state.status), a.state.untouched, -a.version, a.id))
    others = sorted({tag for a in members for tag in a.state.tags} - set(winner.state.tags))
    worked_states = {a.state for a in members if not a.state.untouched}
    worked = sorted(
        {(a.state, a.version) for a in members if not a.state.untouched},
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
        version=max(a.version for a in members) + (1 if unified_work else 0),
        first_id=members[0].id,
        worked=tuple(worked),
        unified_work=unified_work,
    )
