"""The rule a merged or split cluster's reviewer state follows (pipeline/cluster_state.py),
as a pure function: no database."""

from __future__ import annotations

from factcheck.claims.models import Claim
from pipeline.cluster_state import SPLIT_OUT, STATUS_PRECEDENCE, ClusterState, ReviewState, merged_state

S = Claim.Status
UNTOUCHED = ReviewState(status=S.NEW, assignee_id=None, tags=(), dismiss_reason="")


def at(pk: int, status: str, *, assignee: int | None = None, tags: tuple[str, ...] = (), reason: str = "", version: int = 1) -> ClusterState:
    return ClusterState(first_id=pk, state=ReviewState(status, assignee, tags, reason), version=version)


def test_the_precedence_names_every_status_once_most_advanced_first() -> None:
    assert sorted(STATUS_PRECEDENCE) == sorted(S.values) and len(STATUS_PRECEDENCE) == len(set(STATUS_PRECEDENCE))
    assert STATUS_PRECEDENCE[0] == S.APPROVED and STATUS_PRECEDENCE[-1] == S.NEW
    assert STATUS_PRECEDENCE.index(S.DISMISSED) > STATUS_PRECEDENCE.index(S.CHECK)


def test_a_cluster_whose_appearances_agree_is_left_alone() -> None:
    assert merged_state([at(1, S.DRAFTED, assignee=7, version=4), at(2, S.DRAFTED, assignee=7, version=4)]) is None
    assert merged_state([at(1, S.NEW)]) is None
    assert merged_state([]) is None


def test_a_new_appearance_joins_a_drafted_assigned_cluster_at_its_version_unaudited() -> None:
    merged = merged_state([at(5, S.NEW), at(2, S.DRAFTED, assignee=7, tags=("ice",), version=6), at(3, S.DRAFTED, assignee=7, tags=("ice",), version=6)])
    assert merged is not None
    assert (merged.state, merged.version, merged.first_id) == (ReviewState(S.DRAFTED, 7, ("ice",), ""), 6, 2)
    assert not merged.unified_work and len(merged.worked) == 1


def test_an_approved_cluster_merging_with_a_dismissed_one_keeps_approved_every_tag_and_a_version_above_both() -> None:
    merged = merged_state([
        at(9, S.DISMISSED, assignee=3, tags=("opinion",), reason="Opinion, not a claim.", version=8),
        at(4, S.APPROVED, assignee=7, tags=("ice", "boston"), version=5),
    ])
    assert merged is not None
    # The approved state with its assignee and (empty) reason; its tags in their order, then the rest's.
    assert merged.state == ReviewState(S.APPROVED, 7, ("ice", "boston", "opinion"), "")
    assert merged.version == 9 and merged.first_id == 4 and merged.unified_work
    assert [(state.status, version) for state, version in merged.worked] == [(S.APPROVED, 5), (S.DISMISSED, 8)]


def test_ties_go_to_worked_state_then_higher_version_then_first_appearance() -> None:
    # A new but tagged appearance is work; the untouched one is not.
    tagged = merged_state([at(1, S.NEW), at(2, S.NEW, tags=("budget",), version=2)])
    assert tagged is not None and (tagged.state.tags, tagged.version, tagged.unified_work) == (("budget",), 2, False)
    by_version = merged_state([at(1, S.CHECK, assignee=3, version=2), at(2, S.CHECK, assignee=4, version=5)])
    assert by_version is not None and (by_version.state.assignee_id, by_version.version) == (4, 6)
    by_id = merged_state([at(2, S.CHECK, assignee=4, version=5), at(1, S.CHECK, assignee=3, version=5)])
    assert by_id is not None and by_id.state.assignee_id == 3 and by_id.unified_work


def test_appearances_differing_only_in_version_take_the_highest() -> None:
    merged = merged_state([at(1, S.CHECK, assignee=3, version=2), at(2, S.CHECK, assignee=3, version=4)])
    assert merged is not None and (merged.version, merged.unified_work) == (4, False)


def test_a_split_out_appearance_starts_untouched() -> None:
    assert SPLIT_OUT == UNTOUCHED and SPLIT_OUT.untouched
    assert not ReviewState(S.NEW, None, (), "Duplicate.").untouched
