"""One figure, one place at the top (issue 29): the wordings of a figure across articles rank
once (pipeline.nlp.stories, pipeline/stories_store.py)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from factcheck.articles.services import ArticleInput, article_ingest
from factcheck.claims.models import Claim, ClaimCluster, RankingWeights
from factcheck.claims.ranking.priority import DEFAULT_RANKING_WEIGHTS, priority_breakdown, priority_reasons
from factcheck.claims.workflow import selectors as workflow_selectors
from factcheck.claims.workflow.services import claim_split
from factcheck.runs.services import run_create
from factcheck.runs.spark import database_url_for_job
from pipeline import db
from pipeline.nlp.clustering import Clustering
from pipeline.nlp.quantities import parse_quantities
from pipeline.nlp.stories import StoryMember, content_words, headline_figure, repeats, story_keys
from pipeline.stories_store import refresh_story_repeats

# Four wordings of one figure in four BBC articles of the 2005 campaign, and two sentences
# that share a sum and a party with them, or with each other, and nothing else.
HOWARD = "Tory leader Michael Howard says his party can save £35bn in government spending by tackling waste."
HIGHLIGHTED = 'The Tories on Monday highlighted £35bn in "wasteful" spending they would stop to allow tax cuts.'
CUT = "And he claimed the Tories would cut £35bn from public services, which was the equivalent of sacking every doctor."
COMMITTED = '"The Conservatives are committed to cutting Labour\'s public spending plans by a massive £35 billion," he said.'
ERM = "Laying into the Conservatives' record he said Labour would never return to the mistakes of ERM and £3bn in lost reserves."
ASYLUM = "The Tory leader said English local authorities have spent more than £3bn on asylum since Labour won power in 1997."


def keys(sentence: str, speaker: str = "") -> list[str]:
    return story_keys(sentence=sentence, quantities=[q.as_dict() for q in parse_quantities(sentence)], speaker=speaker)


def member(name: str, sentence: str, priority: float, day: int | None = None) -> StoryMember:
    return StoryMember(name, tuple(keys(sentence)), content_words(sentence), priority, day)


def test_a_claims_story_keys_are_its_headline_figure_with_each_actor_it_names() -> None:
    assert keys(HOWARD) == ["GBP 3.5e+10 | conservatives", "GBP 3.5e+10 | howard", "GBP 3.5e+10 | michael"]
    # A party in any spelling, a figure in any unit wording.
    assert keys(COMMITTED) == ["GBP 3.5e+10 | conservatives", "GBP 3.5e+10 | labour"]
    # The speaker counts as named; not the outlet that makes a claim itself (every BBC figure
    # would be one story of "BBC News").
    assert "jobs 1.25e+04 | brown" in keys("The first 12,500 civil service jobs had been cut, on target.", speaker="Gordon Brown")
    sold = "The game sold more than 1 million copies in its first nine days."
    assert story_keys(sentence=sold, quantities=[q.as_dict() for q in parse_quantities(sold)], speaker="BBC News", attribution="article") == []
    # The largest sum, not the first; a count only where no sum is big enough.
    assert headline_figure([q.as_dict() for q in parse_quantities("£4bn of tax cuts from £35bn of savings for 250,000 families")]) == "GBP 3.5e+10"
    assert headline_figure([q.as_dict() for q in parse_quantities("250,000 failed asylum seekers and £500 each")]) == "seekers 2.5e+05"
    # Small sums, shares and years tell no story apart; a claim without a name has no key.
    assert keys("The Tories said taxes would rise 3% by 2006 and cost families £500.") == []
    assert keys("More than £3bn has been spent on asylum since 1997.") == []


def test_the_wordings_of_a_figure_rank_once_and_only_kept_claims_hold_others_back() -> None:
    members = [
        member("howard", HOWARD, 210.0),
        member("highlighted", HIGHLIGHTED, 202.0),
        member("cut", CUT, 194.0),
        member("committed", COMMITTED, 181.0),
        # A sum and a party in common and no other word: another story.
        member("erm", ERM, 205.0),
        member("asylum", ASYLUM, 190.0),
    ]
    # "cut" shares the sum and the party with Howard's wording and no other word: Labour's
    # reading of the figure (cuts to services, not savings on waste) stands on its own.
    assert repeats(members) == {"highlighted": "howard", "committed": "howard"}
    # The order given does not matter.
    assert repeats(list(reversed(members))) == repeats(members)
    # It shares "cut" with "highlighted", which holds it back only where "highlighted" is kept:
    assert repeats([member("highlighted", HIGHLIGHTED, 202.0), member("cut", CUT, 194.0)]) == {"cut": "highlighted"}


def test_wordings_more_than_a_week_apart_are_two_stories() -> None:
    assert repeats([member("howard", HOWARD, 210.0, day=100), member("committed", COMMITTED, 181.0, day=108)]) == {}
    assert repeats([member("howard", HOWARD, 210.0, day=100), member("committed", COMMITTED, 181.0, day=107)]) == {"committed": "howard"}
    # Undated wordings (an archive imported without dates) are one day's news.
    assert repeats([member("howard", HOWARD, 210.0, day=None), member("committed", COMMITTED, 181.0, day=300)]) == {"committed": "howard"}


pytestmark_db = pytest.mark.django_db(transaction=True)


def staged(article_id: int, key: str, sentence: str, *, score: float) -> tuple[object, ...]:
    """A claim as extraction produces it (pipeline.staging.CLAIM_COLUMNS), with its story keys."""
    quantities = [q.as_dict() for q in parse_quantities(sentence)]
    signals = {"public_interest": 0.7, "topic": "public_finances", "source": 0.5, "specificity": 0.5, "routine": 0.0}
    if story := story_keys(sentence=sentence, quantities=quantities):
        signals["story"] = story
    return (
        key, article_id, 0, len(sentence), sentence, "", "", "article", score, "numeric", "numeric", json.dumps(quantities),
        json.dumps(signals), "", [], [],
    )


def merge(sentences: list[tuple[str, str, float]], *, assigned: dict[str, str] | None = None) -> None:
    """One run of articles, one claim each, every claim its own cluster unless `assigned`."""
    articles = [article_ingest(data=ArticleInput(text=sentence, outlet=key), batch=None)[0] for key, sentence, _ in sentences]
    run = run_create(article_ids=[article.pk for article in articles])
    runner = db.PostgresRun(database_url_for_job(), run.pk)
    runner.write_claims([staged(article.pk, key * 40, sentence, score=score) for article, (key, sentence, score) in zip(articles, sentences, strict=True)])
    runner.merge(Clustering(assigned={key * 40: cluster * 40 for key, cluster in (assigned or {}).items()}, remap=[]))


@pytestmark_db
def test_the_merge_holds_back_other_wordings_and_a_stronger_newcomer_takes_the_lead() -> None:
    RankingWeights.objects.update_or_create(pk=1, defaults={"weights": DEFAULT_RANKING_WEIGHTS, "version": 1})
    weight = DEFAULT_RANKING_WEIGHTS["repeat"]
    merge([("a", HOWARD, 0.9), ("b", HIGHLIGHTED, 0.5), ("c", ASYLUM, 0.3)])
    howard, highlighted, asylum = (Claim.objects.get(claim_key=key * 40) for key in "abc")
    assert highlighted.cluster.repeat_of == howard.cluster_id
    assert highlighted.priority_parts["repeat"] == weight and highlighted.priority_parts["repeat_of"] == howard.pk
    own = sum(value for name, value in highlighted.priority_parts.items() if name in {
        "contestability", "checkworthiness", "public_interest", "source", "specificity", "type", "routine", "spread"})
    assert highlighted.priority == pytest.approx(own + weight)
    assert "repeat" not in howard.priority_parts and "repeat" not in asylum.priority_parts
    assert howard.cluster.repeat_of is None and asylum.cluster.repeat_of is None
    breakdown = priority_breakdown(highlighted.priority_parts, recency=0.0)
    assert f"checked with claim #{howard.pk}" in priority_reasons(highlighted.priority_parts, breakdown, claim_id=highlighted.pk)
    # The queue's stored order follows.
    assert list(Claim.objects.order_by("-queue_rank").values_list("claim_key", flat=True)[:1]) == ["a" * 40]
    assert Claim.objects.get(pk=highlighted.pk).queue_rank < Claim.objects.get(pk=asylum.pk).queue_rank

    # A later run brings a stronger wording: it leads the story, and the stored wording it
    # overtakes is held back though the run did not touch its cluster.
    merge([("d", COMMITTED, 1.0)])
    committed = Claim.objects.get(claim_key="d" * 40)
    clusters = {c.cluster_key[0]: c.repeat_of for c in ClaimCluster.objects.all()}
    assert clusters == {"a": committed.cluster_id, "b": committed.cluster_id, "c": None, "d": None}
    assert Claim.objects.get(pk=howard.pk).priority_parts["repeat_of"] == committed.pk
    assert "repeat" not in Claim.objects.get(pk=committed.pk).priority_parts

    # Applied again, it changes nothing.
    before = list(Claim.objects.order_by("pk").values_list("priority", "priority_parts"))
    from django.db import connection

    with connection.cursor() as cursor:
        assert refresh_story_repeats(cursor, None) == 0
    assert list(Claim.objects.order_by("pk").values_list("priority", "priority_parts")) == before


@pytestmark_db
def test_the_claim_page_lists_the_other_wordings_of_its_figure(client, reviewer) -> None:  # type: ignore[no-untyped-def]
    RankingWeights.objects.update_or_create(pk=1, defaults={"weights": DEFAULT_RANKING_WEIGHTS, "version": 1})
    merge([("a", HOWARD, 0.9), ("b", HIGHLIGHTED, 0.5), ("c", ASYLUM, 0.3)])
    howard, highlighted, asylum = (Claim.objects.get(claim_key=key * 40) for key in "abc")
    client.force_login(reviewer)

    held = client.get(reverse("claims:detail", args=[highlighted.pk])).content.decode()
    section = held[held.index('id="same-figure"'):]
    assert f'id="same-figure-{howard.pk}"' in section and "ranks the figure" in section
    assert "this one is held back in the queue" in section
    assert f"Its figure is checked with claim #{howard.pk}" in held

    leading = client.get(reverse("claims:detail", args=[howard.pk])).content.decode()
    assert f'id="same-figure-{highlighted.pk}"' in leading and "held back in the queue below this one" in leading
    assert 'id="same-figure"' not in client.get(reverse("claims:detail", args=[asylum.pk])).content.decode()


@pytestmark_db
def test_a_split_moves_the_story_with_the_wording_and_frees_what_it_held_back(reviewer) -> None:  # type: ignore[no-untyped-def]
    RankingWeights.objects.update_or_create(pk=1, defaults={"weights": DEFAULT_RANKING_WEIGHTS, "version": 1})
    # Howard's wording leads a cluster it shares with an appearance that carries no figure; the
    # Tories' own wording is held back by that cluster.
    other = "The campaign moved to Wales on Tuesday, where the parties debated rural schools."
    merge([("a", HOWARD, 0.9), ("e", other, 0.2), ("b", HIGHLIGHTED, 0.5)], assigned={"a": "a", "e": "a"})
    howard, highlighted = Claim.objects.get(claim_key="a" * 40), Claim.objects.get(claim_key="b" * 40)
    assert highlighted.cluster.repeat_of == "a" * 40

    # Split out, Howard's wording takes the story to its own cluster: what it held back follows
    # it there, and the cluster it left, now led by a sentence with no figure, holds back nothing.
    claim_split(claim=howard, actor=reviewer, reason="Another claim than the campaign's schedule.")
    howard.refresh_from_db()
    assert howard.cluster_id != "a" * 40
    assert ClaimCluster.objects.get(cluster_key="a" * 40).story_keys == []
    assert Claim.objects.get(pk=highlighted.pk).cluster.repeat_of == howard.cluster_id
    assert Claim.objects.get(pk=highlighted.pk).priority_parts["repeat_of"] == howard.pk
    assert "repeat" not in Claim.objects.get(claim_key="e" * 40).priority_parts


@pytestmark_db
def test_the_claim_page_shows_the_first_wordings_of_a_much_repeated_figure(client, reviewer, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    RankingWeights.objects.update_or_create(pk=1, defaults={"weights": DEFAULT_RANKING_WEIGHTS, "version": 1})
    monkeypatch.setattr(workflow_selectors, "SAME_FIGURE_SHOWN", 1)
    merge([("a", HOWARD, 0.9), ("b", HIGHLIGHTED, 0.5), ("d", COMMITTED, 0.4)])
    howard = Claim.objects.get(claim_key="a" * 40)
    client.force_login(reviewer)
    page = client.get(reverse("claims:detail", args=[howard.pk])).content.decode()
    assert "Same figure, other wordings (the first 1)" in page
    assert page.count('id="same-figure-') == 1
