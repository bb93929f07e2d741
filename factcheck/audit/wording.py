"""What each audit verb means in people's words, for the history a person reads.

The verbs stay short, stable keys in the database (filters, exports, tests read them); this is
the one place that says them as a sentence: "rita marked it for checking (New → Check it)".
A verb missing here is still shown, as its key with the dots made spaces.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from factcheck.audit.models import AuditEvent

VERB_WORDS: dict[str, str] = {
    "claim.check": "marked for checking",
    "claim.dismiss": "dismissed the claim",
    "claim.research": "started research",
    "claim.assign": "assigned the claim",
    "claim.release": "released the claim",
    "claim.tag": "changed the tags",
    "annotation.add": "added a note",
    "evidence.add": "added evidence",
    "verdict.draft": "drafted the verdict",
    "verdict.revise": "started a new revision of the verdict",
    "verdict.edit": "edited the verdict",
    "verdict.approve": "approved the verdict",
    "verdict.return": "returned the verdict for changes",
    "verdict.withdraw": "withdrew the published fact check",
    "claim.split": "split this appearance out of its cluster: not the same claim",
    "cluster.split": "split an appearance out of the cluster",
    "cluster.merge": "merged clusters of the same claim into one",
    "claim_match.confirm": "confirmed an earlier fact-check as a match",
    "claim_match.reject": "rejected a suggested earlier fact-check",
    "claim_match.attach": "attached an earlier fact-check from the library as a match",
    "run.rerun": "re-ran the pipeline",
    "ranking_weights_set": "changed the ranking weights",
    "model_version.register": "registered a refitted model version as a candidate",
    "model_version.promote": "switched a model version on",
    "model_version.rollback": "rolled a model back to the version before",
    "refit.request": "asked for a model to be refitted from the desk's decisions",
    "organisation.seed": "set up the organisation from the environment",
    "organisation.update": "changed the organisation",
}


def verb_words(verb: str) -> str:
    return VERB_WORDS.get(verb) or verb.replace("_", " ").replace(".", " ")


def event_words(event: AuditEvent, *, status_label: Callable[[str], str] = str) -> str:
    """The event as the rest of a sentence after its actor, with what changed: the status
    (through `status_label`, the object's own names for its statuses) and the assignee."""
    before: Mapping[str, Any] = event.before or {}
    after: Mapping[str, Any] = event.after or {}
    actor = event.actor.get_username() if event.actor else None
    words = verb_words(event.verb)
    if event.verb == "claim.assign" and after.get("assignee"):
        words = "took the claim" if after["assignee"] == actor else f"assigned the claim to {after['assignee']}"
    elif event.verb == "claim.release" and before.get("assignee"):
        words = "released the claim" if before["assignee"] == actor else f"took the claim from {before['assignee']}"
    elif event.verb == "claim.tag" and "tags" in after:
        words = f"set the tags to {', '.join(after['tags'])}" if after["tags"] else "removed every tag"
    elif event.verb == "cluster.split" and after.get("split_out"):
        words = f"split claim {after['split_out']} out of the cluster: not the same claim"
    details = []
    if before.get("status") and after.get("status") and before["status"] != after["status"]:
        details.append(f"{status_label(before['status'])} → {status_label(after['status'])}")
    if event.verb not in ("claim.assign", "claim.release") and "assignee" in after and before.get("assignee") != after.get("assignee"):
        details.append(f"assigned to {after['assignee'] or 'nobody'}")
    if after.get("factcheck"):
        details.append(f"fact-check #{after['factcheck']}")
    return words + (f" ({'; '.join(details)})" if details else "")
