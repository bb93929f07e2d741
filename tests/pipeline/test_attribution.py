"""Attribution of each sentence to a quoted speaker, a reported speaker, or the outlet."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.nlp.attribution import Attribution, attribute_sentences
from pipeline.nlp.segment import split_sentences

_ROOT = Path(__file__).resolve().parents[2]
_SENTENCE = re.compile(r"\S[^\n]*?(?:[.!?]+[”\"’)]*(?=\s+[“\"‘(]?[A-Z0-9]|\s*\n|\s*$)|(?=\n)|$)")
_ABBREVIATION_END = re.compile(r"(?:\b(?:[A-Z]\.){2,}|\b(?:Mr|Mrs|Ms|Dr|Gov|Sen|Rep|St|Jr|Sr)\.)$")


def _seed(name: str) -> str:
    local = _ROOT / "seeds" / f"{name}.txt"
    path = local if local.exists() else _ROOT.parent / "shared" / "seeds" / f"{name}.txt"
    if not path.exists():
        pytest.fail(f"seed {name} is missing from seeds/")
    return path.read_text(encoding="utf-8")


def _spans(text: str) -> list[tuple[int, int]]:
    """Tiny stand-in for pipeline.nlp.segment: split after .!? (and closing quotes) before a capital."""
    out: list[tuple[int, int]] = []
    for m in _SENTENCE.finditer(text):
        if not m.group().strip():
            continue
        glued = out and "\n" not in text[out[-1][1]:m.start()]
        if glued and _ABBREVIATION_END.search(text[out[-1][0]:out[-1][1]]):
            out[-1] = (out[-1][0], m.end())
        else:
            out.append((m.start(), m.end()))
    return out


def _attributed(text: str, **kwargs: str) -> list[tuple[str, Attribution]]:
    spans = _spans(text)
    result = attribute_sentences(text, spans, **kwargs)
    assert len(result) == len(spans)
    return [(text[a:b], attr) for (a, b), attr in zip(spans, result, strict=True)]


def _find(pairs: list[tuple[str, Attribution]], fragment: str) -> Attribution:
    hits = [attr for sentence, attr in pairs if fragment in sentence]
    assert len(hits) == 1, f"{fragment!r} matched {len(hits)} sentences"
    return hits[0]


LYONS_TITLES = ("Acting Immigration and Customs Enforcement Director", "Acting ICE Director")


def _is_lyons(attr: Attribution, kind: str = "direct_quote") -> bool:
    return attr.speaker == "Todd Lyons" and attr.title in LYONS_TITLES and attr.kind == kind


class TestSeed000:
    @pytest.fixture(scope="class")
    def pairs(self) -> list[tuple[str, Attribution]]:
        return _attributed(_seed("000_89b394fdc0eca745"))

    def test_he_said_resolves_to_lyons_not_the_radio_host(self, pairs: list[tuple[str, Attribution]]) -> None:
        attr = _find(pairs, "We have so many men and women of the Boston Police")
        assert _is_lyons(attr)
        assert attr.title == "Acting Immigration and Customs Enforcement Director"

    def test_lyons_added_covers_the_whole_quotation(self, pairs: list[tuple[str, Attribution]]) -> None:
        for fragment in ("Sanctuary does not mean safer streets", "It means more criminal aliens", "you will see a larger ICE presence"):
            assert _is_lyons(_find(pairs, fragment)), fragment

    def test_he_explained_and_lyons_stated_continuations(self, pairs: list[tuple[str, Attribution]]) -> None:
        for fragment in (
            "flood the zone",
            "Boston and Massachusetts decided",
            "local leaders don’t understand",
            "There are so many of these criminal aliens",
            "And we can take that violent criminal alien",
        ):
            assert _is_lyons(_find(pairs, fragment)), fragment

    def test_narrative_is_article(self, pairs: list[tuple[str, Attribution]]) -> None:
        for fragment in ("For years, Wu has been", "Rather than creating safer communities", "They’ll likely be called"):
            assert _find(pairs, fragment) == Attribution("", "", "article")

    def test_reported_promise(self, pairs: list[tuple[str, Attribution]]) -> None:
        assert _is_lyons(_find(pairs, "Lyons promised to target"), "reported")


class TestSeed001:
    @pytest.fixture(scope="class")
    def pairs(self) -> list[tuple[str, Attribution]]:
        return _attributed(_seed("001_6224e2dd4404653b"), outlet="Breitbart News", author="Warner Todd Huston")

    def test_two_sentence_quote_with_trailing_cue(self, pairs: list[tuple[str, Attribution]]) -> None:
        assert _is_lyons(_find(pairs, "They can’t cooperate openly"))
        assert _is_lyons(_find(pairs, "But they’re helping us anyway"))

    def test_according_to(self, pairs: list[tuple[str, Attribution]]) -> None:
        attr = _find(pairs, "Boston cops are defying")
        assert _is_lyons(attr, "reported")
        assert attr.title == "Acting ICE Director"

    def test_article_sentence_uses_author(self, pairs: list[tuple[str, Attribution]]) -> None:
        assert _find(pairs, "Wu has been prominent among the many extremist") == Attribution("Warner Todd Huston", "", "article")

    def test_continued_told_and_he_added(self, pairs: list[tuple[str, Attribution]]) -> None:
        for fragment in (
            "That’s the issue we’re seeing",
            "We have so many men and women on the Boston",
            "And that’s what I think",
            "We can take that violent criminal alien",
            "Boston and Massachusetts decided",
            "Sanctuary does not mean safer streets",
            "But 100%, you will see",
        ):
            assert _is_lyons(_find(pairs, fragment)), fragment

    def test_reported_speech(self, pairs: list[tuple[str, Attribution]]) -> None:
        assert _is_lyons(_find(pairs, "Lyons added that Boston"), "reported")
        assert _is_lyons(_find(pairs, "intends to “flood the zone”"), "reported")


class TestSeed002:
    @pytest.fixture(scope="class")
    def pairs(self) -> list[tuple[str, Attribution]]:
        return _attributed(_seed("002_a4664de892463d8e"), outlet="MassLive")

    def test_wu_quote_and_its_continuation(self, pairs: list[tuple[str, Attribution]]) -> None:
        wu = Attribution("Michelle Wu", "Boston Mayor", "direct_quote")
        assert _find(pairs, "Here is our response") == wu
        assert _find(pairs, "Unlike the Trump administration, Boston follows") == wu
        assert _find(pairs, "And Boston will not back down") == wu

    def test_she_said_resolves_to_wu(self, pairs: list[tuple[str, Attribution]]) -> None:
        wu = Attribution("Michelle Wu", "Boston Mayor", "direct_quote")
        assert _find(pairs, "We are going to continue to apply") == wu
        assert _find(pairs, "Where possible, we are leaning on the law") == wu

    def test_kraft_quote(self, pairs: list[tuple[str, Attribution]]) -> None:
        kraft = Attribution("Josh Kraft", "Mayoral candidate", "direct_quote")
        assert _find(pairs, "It is outrageous to think") == kraft
        assert _find(pairs, "We cannot yield to Donald Trump") == kraft
        assert _find(pairs, "mayoral candidate Josh Kraft, Wu’s top challenger") == Attribution("Josh Kraft", "Mayoral candidate", "reported")

    def test_he_said_after_lyons_said(self, pairs: list[tuple[str, Attribution]]) -> None:
        assert _is_lyons(_find(pairs, "Now you’re going to see more ICE agents"))
        assert _is_lyons(_find(pairs, "We’re definitely going to … flood the zone"))
        assert _is_lyons(_find(pairs, "Make no mistake"))

    def test_reported_speech(self, pairs: list[tuple[str, Attribution]]) -> None:
        wu = Attribution("Michelle Wu", "Boston Mayor", "reported")
        assert _find(pairs, "Wu said Tuesday that if the federal government") == wu
        assert _find(pairs, "Wu said Boston has been receiving those grants") == wu
        assert _find(pairs, "She pointed to the city’s lawsuit") == wu
        assert _find(pairs, "At a rally Tuesday outside City Hall") == wu
        assert _is_lyons(_find(pairs, "Boston “100%” will have"), "reported")
        assert _is_lyons(_find(pairs, "fired back Wednesday, saying"), "reported")
        assert _find(pairs, "Officials say the policy") == Attribution("Officials", "", "reported")

    def test_article_sentences(self, pairs: list[tuple[str, Attribution]]) -> None:
        article = Attribution("MassLive", "", "article")
        for fragment in (
            "A judge deemed the funding cuts unconstitutional",
            "Lyons’ response came during an interview",
            "Federal officials have upped their pressure",
            "More recently, the Trump administration has added",
            "An increased federal presence around Boston",
        ):
            assert _find(pairs, fragment) == article, fragment

    def test_bondi_title(self, pairs: list[tuple[str, Attribution]]) -> None:
        text = "Last week, U.S. Attorney General Pam Bondi gave cities a deadline. “We expect compliance now,” she said."
        assert _attributed(text)[1][1] == Attribution("Pam Bondi", "U.S. Attorney General", "direct_quote")


def test_pronouns_follow_gender_and_recency() -> None:
    text = (
        "Senator Jane Smith met Governor Bob Jones on Monday.\n\n"
        '"We will pass this bill. It is good for the state," said Smith.\n\n'
        '"I disagree," Jones said. "It costs too much."\n\n'
        "He added that the budget was tight. She said the bill would pass anyway.\n\n"
        "The vote is expected next week, police said."
    )
    pairs = _attributed(text, outlet="Globe", author="Ann Writer")
    smith = ("Jane Smith", "Senator")
    jones = ("Bob Jones", "Governor")
    got = [(a.speaker, a.title, a.kind) for _, a in pairs]
    assert got == [
        ("Ann Writer", "", "article"),
        (*smith, "direct_quote"),
        (*smith, "direct_quote"),
        (*jones, "direct_quote"),
        (*jones, "direct_quote"),
        (*jones, "reported"),
        (*smith, "reported"),
        ("police", "", "reported"),
    ]


def test_quote_continuing_into_next_paragraph() -> None:
    text = (
        "Mayor Ann Lee spoke on Friday.\n\n"
        "“This is the first paragraph of a long quote. It goes on.\n\n"
        "“And this paragraph finishes it,” the mayor said."
    )
    pairs = _attributed(text)
    assert [a.speaker for _, a in pairs[1:]] == ["Ann Lee"] * 3
    assert {a.kind for _, a in pairs[1:]} == {"direct_quote"}


def test_unknown_speaker_inside_quote_and_outlet_fallback() -> None:
    text = "Every officer swears to “bear true faith and allegiance to the commonwealth. So help me, God.”"
    pairs = _attributed(text, outlet="Herald")
    assert pairs[0][1] == Attribution("Herald", "", "article")
    assert pairs[1][1] == Attribution("", "", "direct_quote")


def test_empty_spans() -> None:
    assert attribute_sentences("Nothing here.", []) == []


def test_with_the_project_segmenter() -> None:
    text = _seed("002_a4664de892463d8e")
    spans = [(s.start, s.end) for s in split_sentences(text)]
    pairs = [(text[a:b], attr) for (a, b), attr in zip(spans, attribute_sentences(text, spans, outlet="MassLive"), strict=True)]
    assert _find(pairs, "And Boston will not back down") == Attribution("Michelle Wu", "Boston Mayor", "direct_quote")
    assert _is_lyons(_find(pairs, "Now you’re going to see more ICE agents"))
    assert _find(pairs, "We cannot yield to Donald Trump").speaker == "Josh Kraft"


# --------------------------------------------------------------------------- BBC News copy
# Short excerpts from the BBC News corpus (../shared/data/bbc_news), article id in each test.


def _segmented(text: str, outlet: str = "BBC News") -> list[tuple[str, Attribution]]:
    spans = [(s.start, s.end) for s in split_sentences(text)]
    return [(text[a:b], attr) for (a, b), attr in zip(spans, attribute_sentences(text, spans, outlet=outlet), strict=True)]


@pytest.mark.parametrize(
    ("text", "fragment", "speaker", "title", "kind"),
    [
        (  # politics/107: "May." is a sentence's last word, not an abbreviated title.
            "But the prime minister insisted he did not know what date the poll would take place despite"
            " speculation about 5 May. Mr Blair said he was taking \"nothing for granted\" ahead of the vote.",
            "Mr Blair said", "Blair", "Mr", "reported",
        ),
        (  # politics/166
            "The allegations, which he has denied, are being investigated by Sir Alan Budd. Mr Blunkett talked about"
            " how he fell in love. Mr Blunkett said he was a great believer in responsibility.",
            "great believer", "Blunkett", "Mr", "reported",
        ),
        (  # entertainment/347
            "It was also adapted for television in 1954 with actor Barry Nelson as an Americanised \"Jimmy\" Bond."
            " MGM Vice Chairman Chris McGurk said: \"Martin (Campbell) is an incredibly exciting film-maker.\"",
            "incredibly exciting", "Chris McGurk", "MGM Vice Chairman", "direct_quote",
        ),
        (  # politics/306: "Both" opens the sentence, it is no part of a title.
            "Mr Campbell has consistently made public his keenness to play a part in the poll, expected in May."
            " Both Culture Secretary Tessa Jowell and Deputy Prime Minister John Prescott have welcomed his return."
            " But she said his return would not put anybody else's \"nose out of joint\".",
            "nose out of joint", "Tessa Jowell", "Culture Secretary", "reported",
        ),
    ],
)
def test_titles_stop_at_the_sentence_boundary(text: str, fragment: str, speaker: str, title: str, kind: str) -> None:
    attr = _find(_segmented(text), fragment)
    assert (attr.speaker, attr.title, attr.kind) == (speaker, title, kind)


SPORT_197 = (  # sport/197: straight quotes, a quotation re-opened without closing the first.
    "Chelsea assistant boss Steve Clarke said: \"I would rather talk about the football but we think it was"
    " something thrown from the crowd. He did not require stitches.\" West Ham boss Alan Pardew said: \"It's a"
    " shame because I thought there was good English banter in the crowd. \"There's big rivalry between the two"
    " clubs and it is a shame if that's happened. From where I was standing I didn't see any trouble.\" Former"
    " Hammers star Joe Cole also had a plastic bottle thrown at him. Fans are also thought to have clashed outside"
    " the ground after the game. Scotland Yard said there had been 11 arrests for alleged public order, drugs and"
    " offensive weapon offences."
)


def test_scotland_yard_said_is_scotland_yard_not_the_manager_quoted_before() -> None:
    pairs = _segmented(SPORT_197)
    assert _find(pairs, "11 arrests") == Attribution("Scotland Yard", "", "reported")
    assert _find(pairs, "Fans are also thought") == Attribution("BBC News", "", "article")
    assert _find(pairs, "There's big rivalry") == Attribution("Alan Pardew", "West Ham boss", "direct_quote")
    assert _find(pairs, "didn't see any trouble") == Attribution("Alan Pardew", "West Ham boss", "direct_quote")
    assert _find(pairs, "did not require stitches") == Attribution("Steve Clarke", "Chelsea assistant boss", "direct_quote")


@pytest.mark.parametrize(
    ("sentence", "speaker"),
    [
        ("The Home Office said the number of asylum claims had fallen.", "Home Office"),
        ("The Conservatives say Labour has raised taxes 66 times.", "Conservatives"),  # politics/301 wording
        ("Labour said the figure was wrong.", "Labour"),
        ("Police said three men had been arrested.", "Police"),
        ("The Tories claim immigration is out of control.", "Tories"),
        ("A spokeswoman for Chelsea said the club would await the referee's report.", "Chelsea spokeswoman"),  # sport/197
        ("A spokesman for the Home Office said the figures would be published.", "Home Office spokesman"),
        ("The Veritas leader said the only people to benefit were employers.", "Veritas leader"),  # politics/237
    ],
)
def test_x_said_is_x(sentence: str, speaker: str) -> None:
    (attr,) = [a for _, a in _segmented(sentence)]
    assert (attr.speaker, attr.kind) == (speaker, "reported")


def test_she_after_a_spokeswoman_is_the_spokeswoman() -> None:
    text = (  # politics/061
        "Royal Mail says it is investigating the situation. A spokeswoman for the Electoral Commission told BBC News"
        " Online that letters were being sent out to those homes affected. She said the commission was satisfied that"
        " measures had been put in place."
    )
    pairs = _segmented(text)
    assert _find(pairs, "She said the commission").speaker == "Electoral Commission spokeswoman"


def test_asylum_cost_is_kilroy_silks_claim_not_the_outlets() -> None:
    # politics/237: "And he argued ..." is reported speech of the MEP introduced before; the
    # outlet only reports it. A plain assertion of the article stays the outlet's.
    text = (
        "Ex-chatshow host Robert Kilroy-Silk has attacked UK policy on immigration.\n\n"
        "The Veritas leader said the only people to benefit from immigrants were employers. The MEP said his party"
        " would only admit foreigners who were required because they had specific skills to offer. And he argued"
        " asylum cost £2bn a year for 14,000 successful applicants.\n\n"
        "The Home Office has not yet published this year's figures."
    )
    pairs = _segmented(text)
    assert _find(pairs, "asylum cost £2bn") == Attribution("Robert Kilroy-Silk", "Ex-chatshow host", "reported")
    assert _find(pairs, "has not yet published") == Attribution("BBC News", "", "article")


def test_appositive_before_a_lead_cue() -> None:
    text = (  # sport/463: "he said" later must not jump to another player.
        "Roger Federer plays Greg Rusedski in the second round on Wednesday. Monfils, who was given a wildcard into"
        " the tournament, said: \"This is my first win over a top 10 player and I am delighted. \"I play my best"
        " tennis when I am fired up,\" he said."
    )
    pairs = _segmented(text)
    assert _find(pairs, "first win over").speaker == "Monfils"
    assert _find(pairs, "I play my best tennis").speaker == "Monfils"


def test_a_byline_name_is_never_a_speaker() -> None:
    # BBC News website style: the byline names the writer, the article's own voice. The
    # corpus copy has its bylines stripped, so this one is written in that style.
    text = (
        "By Nick Assinder\nPolitical correspondent, BBC News website\n\n"
        "The asylum system cost £2bn a year, the figures show. He said the numbers were wrong.\n\n"
        "MassLive reporter Tréa Lavery contributed to this story."
    )
    pairs = _segmented(text)
    assert all(attr.speaker != "Nick Assinder" and attr.speaker != "Tréa Lavery" for _, attr in pairs)
    assert _find(pairs, "cost £2bn a year") == Attribution("BBC News", "", "article")


@pytest.mark.parametrize(
    ("text", "fragment", "speaker", "title"),
    [
        (  # politics/208
            "Britain has offered to send a company of 120 Gurkhas to assist with the tsunami relief effort in Indonesia,"
            " Downing Street said.", "120 Gurkhas", "Downing Street", "",
        ),
        (  # business/166
            "Jeremy de Souza, a spokesman for Crossrail, said on Sunday he could not confirm whether the Treasury was"
            " planning to invest £7.5bn.", "£7.5bn", "Jeremy de Souza", "",
        ),
        (  # entertainment/085
            "The director of the film, Vinod Pande, says the movie is not offensive and has refused to withdraw it.",
            "not offensive", "Vinod Pande", "",
        ),
        (  # tech/344
            "UK broadcaster Virgin Radio says it will become the first station in the world to offer radio via 3G mobiles.",
            "first station", "Virgin Radio", "UK broadcaster",
        ),
        (  # sport/189
            "On Thursday Rangers said they would not be increasing their offer of £4m.", "£4m", "Rangers", "",
        ),
        (  # business/378
            "The head of the Ukrainian state-owned Naftohaz company, Yury Boyko, said he was \"fully happy\" with the deal.",
            "fully happy", "Yury Boyko", "",
        ),
        (  # tech/285
            "In a joint statement the firms said they wanted to let consumers enjoy licensed video and music.",
            "joint statement", "firms", "",
        ),
        (  # sport/100, sport/211: "the 21-year-old" is the player the paragraph is about.
            "Egyptian striker Mido has apologised to his national coach. The 21-year-old told a news conference in"
            " Cairo on Sunday that he is sorry.", "news conference", "Mido", "Egyptian striker",
        ),
        (  # entertainment/356: two people joined by "and" are not one title.
            "Tributes came from former US president Bill Clinton and singer Harry Belafonte. Belafonte said he was a"
            " great man.", "great man", "Harry Belafonte", "Singer",
        ),
    ],
)
def test_reported_speech_of_organisations_and_described_people(text: str, fragment: str, speaker: str, title: str) -> None:
    attr = _find(_segmented(text), fragment)
    assert (attr.speaker, attr.title, attr.kind) == (speaker, title, "reported")


@pytest.mark.parametrize(
    ("text", "fragment", "speaker", "title", "kind"),
    [
        (  # politics/350: the Conservatives' "raised taxes 66 times" is the Tories' claim.
            "The Tories accuse Labour of raising taxes 66 times since coming to power in 1997.",
            "66 times", "Tories", "", "reported",
        ),
        (  # politics/260: a co-chairman, and "he said" after his quotation in the same sentence.
            "Mr Milburn promised an upbeat campaign. Conservative co-chairman Liam Fox derided the photo call, saying:"
            " \"The show of unity was the worst acting I have seen since Prisoner Cell Block H.\" Labour had broken"
            " promises by raising taxes 66 times, he said.",
            "derided the photo call", "Liam Fox", "Co-chairman", "reported",
        ),
        (  # politics/153
            "Conservative shadow home secretary David Davis said the government had failed to remove 250,000 failed"
            " asylum seekers from the UK.", "250,000 failed", "David Davis", "Shadow home secretary", "reported",
        ),
        (  # politics/153
            "Tory proposals to cap the number of asylum seekers and process all claims abroad would not work, argued"
            " Mr Blair.", "would not work", "Blair", "Mr", "reported",
        ),
        (  # politics/260: the office is the title, not "Minister Mr".
            "On Tuesday, deputy prime minister Mr Prescott told BBC News: \"They told us very clearly, it was the troops"
            " telling the leaders: get in line.\"", "get in line", "Prescott", "Deputy prime minister", "direct_quote",
        ),
    ],
)
def test_politicians_claims_on_bbc_politics_copy(text: str, fragment: str, speaker: str, title: str, kind: str) -> None:
    attr = _find(_segmented(text), fragment)
    assert (attr.speaker, attr.title, attr.kind) == (speaker, title, kind)


def test_a_quotation_paragraph_goes_on_with_the_last_speaker() -> None:
    text = (  # sport/227
        "Wenger said: \"You don't think I would take out one goalkeeper for just one game, do you? I don't do that.\""
        " Wenger insists he has complete faith in the 27-year-old Spaniard.\n\n"
        "\"If you look at my career, you will see that I have left many big players out for a long time. "
        "\"It's because it's a goalkeeper, that's all.\"\n\n"
        "Meanwhile, Thierry Henry believes he will be blamed. Henry will captain the side in place of the suspended"
        " Patrick Vieira. And the striker said: \"If we don't win, it's going to be my fault.\"\n\n"
        "A spokesman said: \"The club has no comment.\""
    )
    pairs = _segmented(text)
    assert _find(pairs, "If you look at my career").speaker == "Wenger"
    assert _find(pairs, "because it's a goalkeeper").speaker == "Wenger"
    assert _find(pairs, "my fault").speaker == "Thierry Henry"
    assert _find(pairs, "no comment").speaker == "Spokesman"


def test_name_then_role_keeps_the_name_and_makes_the_role_her_title() -> None:
    text = (  # tech/027, politics/406
        "Patricia Sanders, spokeswoman for the Disaster Emergency Committee said it was aware of the site. She said the"
        " spam e-mails started circulating two days ago.\n\n"
        "Mr Brown and Mr Blair met on Monday. Mr Blair said it went well."
    )
    pairs = _segmented(text)
    sanders = ("Patricia Sanders", "Spokeswoman for the Disaster Emergency Committee", "reported")
    for fragment in ("aware of the site", "spam e-mails"):
        attr = _find(pairs, fragment)
        assert (attr.speaker, attr.title, attr.kind) == sanders
    assert _find(pairs, "it went well") == Attribution("Blair", "Mr", "reported")


def test_it_said_is_the_organisation_that_spoke_just_before() -> None:
    text = (  # business/311, politics/370
        "\"2004 reinforces the trend towards higher losses,\" said Swiss Re. Tightly packed populations in the areas"
        " involved in natural and man-made disasters were partly to blame for the rise in claims, it said.\n\n"
        "The Home Office said it had not meant to discriminate against anyone. It said it would look at the"
        " implications of the ruling.\n\n"
        "Analysts said the market was weak. It said the shares would fall."
    )
    pairs = _segmented(text)
    assert _find(pairs, "partly to blame") == Attribution("Swiss Re", "", "reported")
    assert _find(pairs, "look at the implications") == Attribution("Home Office", "", "reported")
    assert _find(pairs, "shares would fall") == Attribution("BBC News", "", "article")


@pytest.mark.parametrize(
    ("sentence", "speaker", "title", "kind"),
    [
        # business/275: a time before the comma is no name.
        ("On Wednesday, the German Federal Labour Agency said the jobless total had reached 5.037 million.",
         "German Federal Labour Agency", "", "reported"),
        # business/133: accused, not accusing.
        ("About 500 officials are accused of either awarding themselves extra money or claiming salaries.", "BBC News", "", "article"),
        # politics/242: "said they were ..." names nobody after the verb.
        ("Departments for defence, environment and trade said they were following rules governing public records.",
         "BBC News", "", "article"),
        ("Defence Secretary Geoff Hoon and Prime Minister Tony Blair met. Mr Blair said it went well.",
         "Tony Blair", "Prime Minister", "reported"),
        ("Trade and Industry Secretary Patricia Hewitt said exports rose.", "Patricia Hewitt", "Trade and Industry Secretary", "reported"),
    ],
)
def test_times_passives_and_two_titled_people(sentence: str, speaker: str, title: str, kind: str) -> None:
    attr = [a for _, a in _segmented(sentence)][-1]
    assert (attr.speaker, attr.title, attr.kind) == (speaker, title, kind)


def test_speech_tag_with_an_appositive_after_the_quotation() -> None:
    text = (  # business/031, tech/178: the news agency told is the listener, not the speaker.
        "\"Investors are concerned,\" Roy Asher, chief investment officer of Hibernian Investment Managers, told"
        " Reuters.\n\n"
        "\"It is obviously very, very encouraging for Sony,\" John Houlihan, editor of Computerandvideogames.com told"
        " BBC News. \"And with Halo 2 out next week, it really is a head-to-head contest.\""
    )
    pairs = _segmented(text)
    assert _find(pairs, "Investors are concerned") == Attribution(
        "Roy Asher", "Chief investment officer of Hibernian Investment Managers", "direct_quote"
    )
    assert _find(pairs, "head-to-head").speaker == "John Houlihan"


# Issue 29: a speaker is someone the article has say it, never a name merely near a say-verb.
@pytest.mark.parametrize(
    ("text", "fragment", "speaker", "kind"),
    [
        (  # politics/007: the donor "said" inside an after-clause; the repayment is the newspapers' report.
            "Dr Fox refused to discuss weekend newspaper reports that the party had repaid £500,000 to former Tory"
            " Treasurer Lord Ashcroft after he said the party could not win the election.",
            "repaid £500,000", "BBC News", "article",
        ),
        (  # politics/007: a thousands separator is not the comma before a speech tag.
            "Former Tory Treasurer Lord Ashcroft gave the party money. He would not discuss reports the party repaid"
            " £500,000 to Lord Ashcroft after he predicted an election defeat.",
            "repaid £500,000", "BBC News", "article",
        ),
        (  # business/023: the prediction sits in a relative clause about the 2.5%.
            "It leaves GDP up 2.3% for the full year, but short of the 2.5% which the French government had predicted.",
            "GDP up 2.3%", "BBC News", "article",
        ),
        (  # politics/410: the quoted words are the committee's, the suspension is the article's.
            "Mr Sayeed was suspended from Parliament for two weeks last month after the Commons standards and privileges"
            " committee said his conduct had fallen \"well below the standards expected\".",
            "suspended from Parliament", "BBC News", "article",
        ),
        (  # politics/414: a main clause that only dates the news keeps the announcer as the speaker.
            "His comments come after the government announced it is to spend £200m on drugs.",
            "£200m", "government", "reported",
        ),
        (  # business/490: a comma after a year still opens a trailing speech tag.
            "The economy grew 5.2% in 2004, the government said.",
            "5.2%", "government", "reported",
        ),
    ],
)
def test_a_say_verb_in_a_subordinate_clause_does_not_make_a_speaker(text: str, fragment: str, speaker: str, kind: str) -> None:
    attr = _find(_segmented(text), fragment)
    assert (attr.speaker, attr.kind) == (speaker, kind)


def test_a_party_named_in_the_plural_is_not_he() -> None:
    text = (  # politics/387
        "Tory chairman Liam Fox accused Labour of lying. The Lib Dems accused Mr Brown of ducking the issue.\n\n"
        "And he claimed the Tories would cut £35bn from public services."
    )
    assert _find(_segmented(text), "cut £35bn").speaker == "Liam Fox"


def test_a_quotation_after_another_speakers_sentence_is_theirs() -> None:
    text = (  # politics/171
        "The plans would help tackle the \"fastest growing rate of obesity in the developed world\", he said."
        " Shadow sports minister Lord Moynihan said the policy would empower local clubs."
        " \"We aim to shift the emphasis directly in to the 151,000 sports clubs in the UK.\""
    )
    pairs = _segmented("Shadow home secretary David Davis spoke first. " + text)
    assert _find(pairs, "fastest growing").speaker == "David Davis"
    assert _find(pairs, "We aim to shift").speaker == "Lord Moynihan"


def test_a_name_keeps_its_particles() -> None:
    text = "President Luiz Inacio Lula da Silva promised to reduce unemployment when he was elected two years ago."
    attr = _find(_segmented(text), "reduce unemployment")
    assert (attr.speaker, attr.title) == ("Luiz Inacio Lula da Silva", "President")


def test_he_is_the_subject_a_description_introduced() -> None:
    text = (  # politics/375
        "Tory leader Michael Howard told MPs the Budget was a con. "
        "Liberal Democrat leader Charles Kennedy attacked Mr Brown for failing to mention the environment. "
        "\"How can it be right that the poorest pay more?\" he asked."
    )
    assert _find(_segmented(text), "How can it be right").speaker == "Charles Kennedy"


def test_a_name_then_its_role_before_a_quotation_is_the_name() -> None:
    text = (  # politics/121
        "Rhodri Glyn Thomas, Plaid Cymru health spokesman said: \"It's exactly the same target she set in 1999.\""
    )
    attr = _find(_segmented(text), "exactly the same target")
    assert (attr.speaker, attr.title) == ("Rhodri Glyn Thomas", "Plaid Cymru health spokesman")
    # A time before the role is no name: the role speaks.
    text = "On Saturday, the Lib Dem chief executive said it was \"just a cock-up\" and would be put right."
    assert _find(_segmented(text), "cock-up").speaker == "Lib Dem chief executive"


def test_calling_something_in_quotation_marks_is_speaking() -> None:
    text = (  # politics/121
        "Rhodri Glyn Thomas, Plaid Cymru health spokesman said: \"It's a failed target.\""
        " For the Welsh Liberal Democrats, Kirsty Williams called the new target \"hugely unambitious\"."
        " \"It leaves patients in Wales still waiting two years before they're treated.\""
    )
    pairs = _segmented(text)
    assert _find(pairs, "hugely unambitious").speaker == "Kirsty Williams"
    assert _find(pairs, "It leaves patients").speaker == "Kirsty Williams"


def test_a_relative_clause_after_a_quoted_noun_phrase_is_not_a_speech_tag() -> None:
    text = (  # politics/085
        "Lib Dem spokesman Ed Davey meanwhile said instead of the \"bonfire of quangos\" New Labour had promised,"
        " there had been an \"explosion\" of them.\n\n"
        "\"For over two decades these unaccountable agencies have mushroomed.\""
    )
    pairs = _segmented(text)
    assert _find(pairs, "bonfire of quangos").speaker == "Ed Davey"
    assert _find(pairs, "For over two decades").speaker == "Ed Davey"


def test_a_participle_of_saying_gives_the_sentence_to_the_main_clauses_subject() -> None:
    pairs = _segmented(  # politics/378, politics/347
        "The prime minister has defended measures to allow house arrest, saying \"several hundred\" people are plotting attacks.\n\n"
        "Lib Dem home affairs spokesman Mark Oaten said the plan was dangerous. "
        "A Labour Party spokesman criticised Michael Howard's record, saying police numbers had fallen by 1,132."
    )
    assert _find(pairs, "several hundred").speaker == "Prime minister"
    # "A spokesman" is someone not named before, not the last spokesman.
    assert _find(pairs, "fallen by 1,132").speaker == "Labour Party spokesman"
    # "claiming" a title is winning it, not saying anything.
    text = "James McIlroy stormed to his second victory in a week, claiming the men's 800m in Erfurt."
    assert _find(_segmented(text), "stormed").kind == "article"


def test_a_main_clause_after_but_has_its_own_speaker() -> None:
    text = (  # politics/344
        "So far that has not faced any real challenge, but independent analysts now claim a third New Labour"
        " government would be forced to increase taxation."
    )
    assert _find(_segmented(text), "independent analysts").speaker == "independent analysts"


def test_a_speech_tag_may_end_with_the_reports_title() -> None:
    text = (  # politics/130
        "Some 45 million children will die needlessly before 2015 and aid budgets are half their 1960 levels,"
        " Oxfam says in a report, Paying the Price."
    )
    assert _find(_segmented(text), "45 million children").speaker == "Oxfam"


def test_two_groups_joined_by_and_speak_together() -> None:
    text = "The Conservatives and Lib Dems insisted that voters faced higher taxes under Labour."  # politics/349
    assert _find(_segmented(text), "higher taxes").speaker == "Conservatives and Lib Dems"
    text = "Ministers met on Monday, and the unions said they would strike."
    assert _find(_segmented(text), "would strike").speaker == "unions"


def test_he_after_an_office_that_opened_the_clause_is_that_office() -> None:
    # politics/387: "he" is the prime minister of the sentence before, not the Tory chairman
    # named a paragraph earlier.
    text = (
        "Tony Blair claimed a Tory government would cut £35bn. Tory chairman Liam Fox accused Labour of a downright lie.\n\n"
        "Appearing together at a Labour poster launch, the prime minister hailed his chancellor's performance. "
        "And he claimed the Tories would cut £35bn from public services."
    )
    assert _find(_segmented(text), "And he claimed").speaker == "Prime minister"
    # The office someone named holds: the shadow chancellor is not "the chancellor".
    text = (
        "Tory shadow chancellor Oliver Letwin said the Budget was a bribe. Chancellor Gordon Brown spoke first.\n\n"
        "Turning to the economy, the chancellor promised stability. He also pledged to end child poverty."
    )
    assert _find(_segmented(text), "He also pledged").speaker == "Gordon Brown"


def test_a_description_after_a_name_is_that_person() -> None:
    # sport/473: "the Swiss star" is Federer, not someone new.
    text = (
        "Roger Federer won again on Sunday.\n\n"
        "According to all those players, the Swiss star is in a different league. "
        '"Right now I feel that a little bit," he told BBC Sport.'
    )
    assert _find(_segmented(text), "Right now").speaker == "Roger Federer"


def test_highlighting_is_saying() -> None:
    # business/030: the OECD's own reading of the figures, not the article's.
    text = "The OECD highlighted current depressed household expenditure in Germany and the eurozone's over-reliance on exports."
    attribution = _find(_segmented(text), "OECD highlighted")
    assert (attribution.speaker, attribution.kind) == ("OECD", "reported")


def test_he_in_a_speech_tag_is_not_who_the_reported_words_are_about() -> None:
    # politics/110: Michael Howard is speaking; "Mr Blair" is what he speaks about.
    text = (
        'Tory leader Michael Howard said: "Who can be trusted to get a grip on our streets?"\n\n'
        'Mr Blair has failed to tackle these problems, he claimed, saying he has the "wrong solution" to them.\n\n'
        "The Tories, he said, can cut crime and improve public services without asking people to pay more taxes."
    )
    pairs = _segmented(text)
    assert _find(pairs, "Mr Blair has failed").speaker == "Michael Howard"
    assert _find(pairs, "The Tories, he said").speaker == "Michael Howard"
    # A clause of its own before the tag may name him: "After Mr Brown spoke, he said".
    text = "Gordon Brown met the unions. After Mr Brown had spoken, he said the deal would stand."
    assert _find(_segmented(text), "After Mr Brown").speaker == "Gordon Brown"


def test_a_name_after_a_role_says_who_holds_it() -> None:
    # business/199: the new president, not the former one the article named first.
    text = (
        "Georgia is offering a tax amnesty to people who hid their earnings under former president Eduard Shevardnadze.\n\n"
        "The country's new president, Mikhail Saakashvili, has said that anyone willing to disclose their wealth will pay 1%."
    )
    assert _find(_segmented(text), "new president").speaker == "Mikhail Saakashvili"


def test_the_full_name_the_article_gives_is_the_speakers_name() -> None:
    # politics/054: "Vince" is in no list of first names; "Mr Cable" is the same man.
    text = (
        "Vince Cable, the party's Treasury spokesman, said raising the threshold would help 400,000 buyers.\n\n"
        'The average saving would be more than £1,000, according to Mr Cable. "Buyers are being squeezed," he said.'
    )
    pairs = _segmented(text)
    assert _find(pairs, "Vince Cable, the party").speaker == "Vince Cable"
    assert _find(pairs, "squeezed").speaker == "Vince Cable"
    # A capitalised word before a surname is no first name when it is a title or a place.
    text = "Mr Brown spoke in Leeds. Yesterday Brown said the economy was strong."
    assert _find(_segmented(text), "economy was strong").speaker == "Brown"


def test_they_is_the_group_that_spoke_in_the_sentence_before() -> None:
    text = (  # politics/317
        "The Tories have promised a reduction on bills for pensioners, who they say have been hardest hit.\n"
        'They say they can save £4bn on "government waste".'
    )
    assert _find(_segmented(text), "save £4bn").speaker == "Tories"
    text = "The minister arrived late. They say the hall was full."  # a person before: nobody says who "they" are
    assert _find(_segmented(text), "hall was full").speaker == "BBC News"


def test_a_party_in_the_singular_speaks_with_another() -> None:
    text = "Labour and the Liberal Democrats have said the party's sums do not add up."  # politics/277
    assert _find(_segmented(text), "sums do not add up").speaker == "Labour and the Liberal Democrats"


def test_what_a_party_publishes_speaks_for_it() -> None:
    text = "Labour's new posters say Britain is enjoying the lowest inflation since the 1960s."  # politics/260
    assert _find(_segmented(text), "lowest inflation").speaker == "Labour"


def test_a_finding_in_the_finders_words() -> None:
    text = 'The MPs found the £456m system was "nowhere near being fully functional".'  # politics/116
    assert _find(_segmented(text), "£456m").speaker == "MPs"
    text = "Police found the car in a field near the airport."
    assert _find(_segmented(text), "Police found").speaker == "BBC News"
