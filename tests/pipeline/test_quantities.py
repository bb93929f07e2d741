"""Quantity extraction: golden cases from the seed articles plus the formats fact-checkers meet."""

from __future__ import annotations

import pytest

from pipeline.nlp.quantities import Quantity, parse_quantities


def _one(sentence: str) -> Quantity:
    found = parse_quantities(sentence)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    ("sentence", "value", "unit", "hedge"),
    [
        ("ICE conducted an operation during which it detained nearly 1,500 people.", 1500, "people", "approximately"),
        ("Bondi gave Boston and nearly three dozen such cities until Tuesday.", 36, "cities", "approximately"),
        ("Wu said Boston has been receiving those grants for 22 years.", 22, "years", "exact"),
        ("alongside the Democratic mayors of three other cities.", 3, "cities", "exact"),
        ("Boston “100%” will have an increased ICE presence.", 100, "percent", "exact"),
        ("Inflation hit 3.5% in the spring.", 3.5, "percent", "exact"),
        ("The state owes $2.4bn to the city.", 2.4e9, "USD", "exact"),
        ("The council spent £1.5m on it.", 1.5e6, "GBP", "exact"),
        ("Some 1.2 million people voted.", 1.2e6, "people", "approximately"),
        ("The fund is worth 3bn.", 3e9, "", "exact"),
        ("Twenty-two agents were sent.", 22, "agents", "exact"),
        ("A dozen officers testified.", 12, "officers", "exact"),
        ("Hundreds of protesters gathered.", 200, "protesters", "approximately"),
        ("Tens of thousands of immigrants live there.", 2e4, "immigrants", "approximately"),
        ("More than 500 people were arrested.", 500, "people", "approximately-above"),
        ("Over 40 mayors signed.", 40, "mayors", "approximately-above"),
        ("At least 20 cities responded.", 20, "cities", "approximately-above"),
        ("The program serves up to 30 families.", 30, "families", "at-most"),
        ("No more than 4 judges agreed.", 4, "judges", "at-most"),
        ("No fewer than 4 judges agreed.", 4, "judges", "at-least"),
        ("About 300 migrants arrived.", 300, "migrants", "approximately"),
        ("Almost 60 percent of voters agreed.", 60, "percent", "approximately"),
        ("Just under 2,000 cases were filed.", 2000, "cases", "approximately-below"),
        ("The shelter holds 10 or more families.", 10, "families", "at-least"),
        ("It took two and a half years.", 2.5, "years", "exact"),
        ("Some 1,500 police officers marched.", 1500, "officers", "approximately"),
        ("The city received $5 million in grants.", 5e6, "USD", "exact"),
        ("Turnout rose 4 percentage points.", 4, "percentage points", "exact"),
    ],
)
def test_golden_values(sentence: str, value: float, unit: str, hedge: str) -> None:
    q = _one(sentence)
    assert q.value == pytest.approx(value)
    assert q.unit == unit
    assert q.hedge == hedge


def test_text_and_offsets_cover_hedge_number_and_noun() -> None:
    sentence = "ICE detained nearly 1,500 people in May."
    q = _one(sentence)
    assert q.text == "nearly 1,500 people"
    assert sentence[q.start:q.end] == q.text
    assert q.as_dict() == {
        "text": "nearly 1,500 people",
        "start": 13,
        "end": 32,
        "value": 1500.0,
        "unit": "people",
        "hedge": "approximately",
        "hedge_text": "nearly",
        "noun": "people",
        "low": None,
        "high": None,
        "magnitude": "",
    }


@pytest.mark.parametrize(
    ("sentence", "value"),
    [
        ("Two-thirds of residents agree.", 2 / 3),
        ("A third of the budget went to police.", 1 / 3),
        ("Half of the officers are pro-ICE.", 0.5),
        ("Three quarters of the cities complied.", 0.75),
        ("One in five Americans moved.", 0.2),
        ("Spending was cut by a third.", 1 / 3),
        ("At 40mph, nine times out of ten they will die.", 0.9),  # BBC politics/115
    ],
)
def test_fractions(sentence: str, value: float) -> None:
    q = _one(sentence)
    assert q.unit == "fraction"
    assert q.value == pytest.approx(value)


@pytest.mark.parametrize(
    ("sentence", "text", "value", "hedge"),
    [
        # politics/096, business/369: a singular denominator joined by a hyphen is a fraction,
        # whatever follows it (spaced, "a third term" stays an ordinal).
        (
            "The Conservative Party would cut the number of MPs by about one-fifth if they were elected, Tory leader Michael Howard has said.",
            "about one-fifth",
            0.2,
            "approximately",
        ),
        ("Alfa-Eco, the venture capital arm of Russian conglomerate Alfa Group, has a one-fifth stake in Sun Interbrew.", "one-fifth", 0.2, "exact"),
    ],
)
def test_a_hyphenated_singular_fraction_is_a_fraction(sentence: str, text: str, value: float, hedge: str) -> None:
    q = _one(sentence)
    assert (q.text, q.unit, q.hedge, q.noun) == (text, "fraction", hedge, "")
    assert q.value == pytest.approx(value)


def test_ordinal_third_is_not_a_fraction() -> None:
    assert parse_quantities("She is seeking a third term.") == []


def test_times_in_a_period_is_no_fraction() -> None:
    assert [(q.value, q.unit) for q in parse_quantities("He tried three times in two years.")] == [(3.0, "times"), (2.0, "years")]


@pytest.mark.parametrize(
    "sentence",
    [
        "The law was passed in 2004.",
        "The operation ran in May 12, 2025 and ended on 12 May.",
        "It happened in the 1990s.",
        "The 2024 election was close.",
        "The meeting is at 3:30 p.m. on the 22nd.",
        "COVID-19 cases fell under Section 8 rules.",
        "No one came and one of them left.",
        "Every officer swears an oath, so help me, God.",
        "The 2024-25 season starts soon.",
    ],
)
def test_non_quantities_are_excluded(sentence: str) -> None:
    assert parse_quantities(sentence) == []


def test_year_like_number_counting_people_is_kept() -> None:
    q = _one("Organisers said 2004 people marched.")
    assert (q.value, q.unit) == (2004, "people")


def test_range_between() -> None:
    low, high = parse_quantities("Between 10 and 20 people were detained.")
    assert (low.value, low.unit, low.hedge) == (10, "people", "at-least")
    assert (high.value, high.unit, high.hedge) == (20, "people", "at-most")
    assert low.text == "Between 10"
    assert high.text == "20 people"


def test_range_dash_shares_unit_and_scale() -> None:
    low, high = parse_quantities("Costs rose 10-20% this year.")
    assert (low.value, low.unit, low.hedge) == (10, "percent", "at-least")
    assert (high.value, high.unit, high.hedge) == (20, "percent", "at-most")
    low, high = parse_quantities("It will cost between 1 and 2 million dollars.")
    assert low.value == 1e6 and high.value == 2e6
    assert low.unit == high.unit == "USD"


def test_an_age_is_counted_in_years() -> None:
    # politics/213: "18 to 30-year-olds" is a range of ages in years, as "a five-year plan" is 5 years.
    found = parse_quantities(
        "\"They are committed to abandoning Labour's targets of getting 50% of 18 to 30-year-olds going into higher"
        ' education and under Lib Dem plans students would even have to study near home."'
    )
    assert [(q.text, q.value, q.unit, q.hedge, q.noun) for q in found] == [
        ("50%", 50, "percent", "exact", ""),
        ("18", 18, "year", "at-least", ""),
        ("30-year-olds", 30, "year", "at-most", ""),
    ]
    assert [(q.value, q.unit) for q in parse_quantities("The 27-year-old was holidaying on the Thai island of Koh Phi Phi with Eileen Lee, 24.")] == [
        (27, "year"),
        (24, ""),
    ]
    # politics/128: an age and the hours that follow it are no range of periods.
    found = parse_quantities("He also promised to increase free nursery education for three and four-year-olds to 15 hours from April 2007.")
    assert [(q.text, q.unit, q.hedge) for q in found[-2:]] == [("four-year-olds", "year", "exact"), ("15 hours", "hours", "exact")]


def test_change_from_to_is_not_a_range() -> None:
    low, high = parse_quantities("The rate went from 10 to 20 percent.")
    assert (low.hedge, high.hedge) == ("exact", "exact")
    assert low.unit == high.unit == "percent"


def test_several_quantities_in_order() -> None:
    found = parse_quantities("Of the 3 cities, 2 lost $40 million and one city lost 12% of its staff.")
    assert [(q.value, q.unit) for q in found] == [(3, "cities"), (2, ""), (40e6, "USD"), (1, "city"), (12, "percent")]
    assert [q.start for q in found] == sorted(q.start for q in found)


def test_empty_and_plain_text() -> None:
    assert parse_quantities("") == []
    assert parse_quantities("Sanctuary does not mean safer streets.") == []


Q = tuple[str, float, str, str]


def _rows(sentence: str) -> list[Q]:
    return [(q.text, q.value, q.unit, q.hedge) for q in parse_quantities(sentence)]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "Quarterly profits jumped 76% to $1.13bn (£600m) for the three months to December.",
            [("76%", 76, "percent", "exact"), ("$1.13bn", 1.13e9, "USD", "exact"),
             ("£600m", 600e6, "GBP", "exact"), ("three months", 3, "months", "exact")],
        ),
        (
            "Sales rose 2% to $11.1bn from $10.9bn.",
            [("2%", 2, "percent", "exact"), ("$11.1bn", 11.1e9, "USD", "exact"),
             ("from $10.9bn", 10.9e9, "USD", "exact")],
        ),
        ("Unemployment fell 5% to 3 million.", [("5%", 5, "percent", "exact"), ("3 million", 3e6, "", "exact")]),
        ("It grew 6.4% to $42.09bn.", [("6.4%", 6.4, "percent", "exact"), ("$42.09bn", 42.09e9, "USD", "exact")]),
        (
            "The number of jobless fell 3.2% to 1.2 million.",
            [("3.2%", 3.2, "percent", "exact"), ("1.2 million", 1.2e6, "", "exact")],
        ),
        (
            "Rates rose 0.25 percentage points to 4.5%.",
            [("0.25 percentage points", 0.25, "percentage points", "exact"), ("4.5%", 4.5, "percent", "exact")],
        ),
        ("Sales were up 27% from its 2003 performance.", [("27%", 27, "percent", "exact")]),
        ("He sent 5 officers to 10 cities.", [("5 officers", 5, "officers", "exact"), ("10 cities", 10, "cities", "exact")]),
        ("Brent crude fell 32 cents to $49.74 a barrel.", [("32 cents", 32, "cents", "exact"), ("$49.74", 49.74, "USD", "exact")]),
        ("The single dropped one place to five.", [("one place", 1, "place", "exact"), ("five", 5, "", "exact")]),
    ],
)
def test_change_then_level_is_not_a_range(sentence: str, expected: list[Q]) -> None:
    """A change then the level reached ("rose X% to $Y"): no range, no borrowed scale."""
    found = _rows(sentence)
    assert [row[0] for row in found] == [row[0] for row in expected]
    for (_, value, unit, hedge), (_, want_value, want_unit, want_hedge) in zip(found, expected, strict=True):
        assert value == pytest.approx(want_value)
        assert (unit, hedge) == (want_unit, want_hedge)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Between 5 and 10 million people fled.", [(5e6, "people"), (10e6, "people")]),
        ("Officials said 5 to 10 million people fled.", [(5e6, "people"), (10e6, "people")]),
        ("Prices rose 10 to 20 percent.", [(10, "percent"), (20, "percent")]),
        ("Between 10% and 20% agreed.", [(10, "percent"), (20, "percent")]),
        ("It costs £5m to £10m.", [(5e6, "GBP"), (10e6, "GBP")]),
        ("Tickets cost $5 to $10.", [(5, "USD"), (10, "USD")]),
        ("The plan costs $5-10 million.", [(5e6, "USD"), (10e6, "")]),
        ("The offence carries a sentence of 16 months to four years.", [(16, "months"), (4, "years")]),
        ("A ban of between six months and two years.", [(6, "months"), (2, "years")]),
        ("Allowances of between one gigabyte and 30 gigabytes a month.", [(1, "gigabyte"), (30, "gigabytes")]),
    ],
)
def test_compatible_ranges_still_link(sentence: str, expected: list[tuple[float, str]]) -> None:
    low, high = parse_quantities(sentence)
    assert (low.value, low.unit, low.hedge) == pytest.approx((expected[0][0], expected[0][1], "at-least"))
    assert (high.value, high.unit, high.hedge) == pytest.approx((expected[1][0], expected[1][1], "at-most"))


# --------------------------------------------------------------------------- BBC News copy
# Numbers inside names, model numbers and scores are not quantities; the sentences are short
# excerpts from the BBC News corpus (../shared/data/bbc_news), article id in each case.


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # business/174, business/282: the Three Gorges dam is no count of gorges.
        ("Yangtze Electric Power, the operator of China's Three Gorges Dam, has said its profits more than doubled in 2004.", []),
        ("The Three Gorges Dam project has led to more than half a million people being relocated.",
         [("a million people", 1e6, "people")]),
        ("The China Three Gorges Project Corp could now face a fine up to 200,000 yuan ($24,000; £12,700).",
         [("up to 200,000 yuan", 2e5, "yuan"), ("$24,000", 24000, "USD"), ("£12,700", 12700, "GBP")]),
        # business/069: Boeing's 717 and 767 are aircraft, not 717 and 767 tankers.
        ("Boeing said earnings during the last three months of 2004 dropped by 84% because of costs relating to stopping"
         " production of its smallest airliner, the 717, and the cancellation of the 767 tanker.",
         [("three months", 3, "months"), ("84%", 84, "percent")]),
        # business/308, business/424
        ("Due to enter service in 2006, the A380 will replace the Boeing 747 jumbo as the world's biggest passenger aircraft.", []),
        # entertainment/179
        ("The debut of US television hit Desperate Housewives has helped lift Channel 4's January audience share by 12%"
         " compared to last year.", [("12%", 12, "percent")]),
        # tech/182 (Windows XP SP2 in tech copy), politics/017 (G8), business/051 (Formula One)
        ("Microsoft's security update for Windows, Service Pack 2, fixes flaws in Windows XP SP2.", []),
        ("The agreement by the G8 group of wealthy nations would save affected countries £3bn pounds a year, he said.",
         [("£3bn", 3e9, "GBP")]),
        ("Fiat owns a 56% stake in Ferrari -best known for its dominant Formula One motor racing team.", [("56%", 56, "percent")]),
        ("He won the Formula 1 title twice.", []),
        # sport copy: the Six Nations, BBC Radio Five Live, tennis and rugby scores.
        ("Ireland face Scotland in Saturday's Six Nations clash.", []),
        ("Interviewed on BBC Radio 2's Jeremy Vine show, he told BBC Radio Five Live he was not going.", []),
        ("Fourth seed Vincent Spadea lost 6-2 6-4 and Tommy Haas won 7-6 (7-4) 6-3.", []),
        ("New Zealand rallied to a 53-37 win over Wales.", []),
        ("Arsenal drew 1-1 with Fulham and Chelsea won 2-0, before 40,000 fans.", [("40,000 fans", 40000, "fans")]),
        # politics/024: World War Two; business/241: the Group of Eight.
        ("It likened the package to the Marshall Plan used to rebuild Europe after World War Two.", []),
        ("The UK holds the presidency of the Group of Eight (G8), which comprises the G7 and Russia.", []),
        # Counts next to names stay counts.
        ("Henman last lost to Rusedski six years ago.", [("six years", 6, "years")]),
        ("But after arriving in London 13 years ago, he feels this promise has not been kept.", [("13 years", 13, "years")]),
        ("Unison's 800,000 workers and Labour's 35 seats.", [("800,000 workers", 8e5, "workers"), ("35 seats", 35, "seats")]),
        ("The group was linked to most of the 220 or so fire-bombing incidents.", [("220 or so fire-bombing incidents", 220, "incidents")]),
        ("Two Britons died in the attack.", [("Two Britons", 2, "britons")]),
    ],
)
def test_numbers_in_names_are_not_quantities(sentence: str, expected: list[tuple[str, float, str]]) -> None:
    found = [(q.text, q.value, q.unit) for q in parse_quantities(sentence)]
    assert [row[0] for row in found] == [row[0] for row in expected]
    for (_, value, unit), (_, want_value, want_unit) in zip(found, expected, strict=True):
        assert (value, unit) == (pytest.approx(want_value), want_unit)


def test_html_entity_is_not_a_number() -> None:
    # business/210: "communiqu&#233;" in the corpus text.
    assert parse_quantities("the first mention of gold in a G7 communiqu&#233; for debt relief") == []


# Issue 29: numbers read as a fact-checker reads them.
@pytest.mark.parametrize(
    "sentence",
    [
        "The economy hit a softer patch after rapid growth in the first half of 2004.",
        "Sales rose in the second half.",
        "Profits fell in the final quarter of the year.",
        "Half of 2004 was lost to the strike.",
        "Prices rose in the latter half of the decade.",
    ],
)
def test_a_part_of_a_period_is_a_period_not_a_fraction(sentence: str) -> None:
    assert [q for q in parse_quantities(sentence) if q.unit == "fraction"] == []


def test_a_fraction_of_a_thing_is_still_a_fraction() -> None:
    q = parse_quantities("This is nearly half of the £11m received.")[0]
    assert (q.value, q.unit, q.hedge, q.hedge_text) == (0.5, "fraction", "approximately", "nearly")


@pytest.mark.parametrize(
    ("sentence", "value", "unit"),
    [
        ("In Ireland there was only a one point three per cent volume sales fall.", 1.3, "percent"),
        ("Growth was two point five percent.", 2.5, "percent"),
        ("The rate is nought point seven five per cent.", 0.75, "percent"),
        ("It cost one point two million dollars.", 1.2e6, "USD"),
        ("Turnout fell three point oh five percentage points.", 3.05, "percentage points"),
    ],
)
def test_spoken_numbers_parse(sentence: str, value: float, unit: str) -> None:
    q = _one(sentence)
    assert (q.value, q.unit) == (pytest.approx(value), unit)


@pytest.mark.parametrize(
    ("sentence", "low", "high", "unit", "noun", "magnitude"),
    [
        ("It ended the scandal of tens of thousands of old people dying.", 2e4, 1e5, "people", "old people", "tens of thousands"),
        ("Hundreds of protesters gathered.", 200, 1000, "protesters", "protesters", "hundreds"),
        ("He pointed to the hundreds of thousands of people who marched.", 2e5, 1e6, "people", "people", "hundreds of thousands"),
        ("He pledged billions of dollars for schools.", 2e9, 1e10, "USD", "", "billions"),
        ("Several hundred officers attended.", 300, 1000, "officers", "officers", "several hundred"),
        ("Dozens of cities complied.", 24, 100, "cities", "cities", "dozens"),
    ],
)
def test_vague_magnitudes_are_ranges(sentence: str, low: float, high: float, unit: str, noun: str, magnitude: str) -> None:
    q = _one(sentence)
    assert (q.low, q.high, q.unit, q.noun, q.magnitude, q.hedge) == (low, high, unit, noun, magnitude, "approximately")
    assert q.value == low


@pytest.mark.parametrize(
    ("sentence", "hedge", "hedge_text"),
    [
        ("ICE detained nearly 1,500 people.", "approximately", "nearly"),
        ("Almost 100,000 jobs will go.", "approximately", "almost"),
        ("Unemployment is at a near 30 year low.", "approximately", "near"),
        ("Close to 500 people came.", "approximately", "close to"),
        ("Just under 2,000 cases were filed.", "approximately-below", "just under"),
        ("Fewer than 40 judges agreed.", "approximately-below", "fewer than"),
        ("More than 80,000 posts will go.", "approximately-above", "more than"),
        ("The program serves up to 30 families.", "at-most", "up to"),
        ("The shelter holds 10 or more families.", "at-least", "or more"),
        ("Inflation hit 3.5% in the spring.", "exact", ""),
    ],
)
def test_hedges_are_their_own_field_as_written(sentence: str, hedge: str, hedge_text: str) -> None:
    q = _one(sentence)
    assert (q.hedge, q.hedge_text) == (hedge, hedge_text)


def test_a_sum_over_a_duration_is_spread_over_it_not_more_than() -> None:
    found = parse_quantities("Funding rose by an extra £4bn ($7.4bn) over 10 years.")
    assert [(q.value, q.unit, q.hedge, q.text) for q in found][-1] == (10, "years", "exact", "10 years")
    found = parse_quantities("Britain pledged £960m over 15 years.")
    assert [(q.value, q.unit, q.hedge, q.text) for q in found][-1] == (15, "years", "exact", "15 years")
    for sentence in ("He has lived there for over 10 years.", "The number waiting over 12 months fell."):
        q = _one(sentence)
        assert (q.hedge, q.text[:5]) == ("approximately-above", "over ")


@pytest.mark.parametrize(
    ("sentence", "unit", "noun"),
    [
        ("She was elected along with three other ethnic minority MPs in 1987.", "mps", "ethnic minority MPs"),
        ("They failed to remove 250,000 failed asylum seekers from the UK.", "seekers", "failed asylum seekers"),
        ("Some 1,500 police officers marched.", "officers", "police officers"),
        ("Money will go to the 151,000 sports clubs in the UK.", "clubs", "sports clubs"),
        ("About 900,000 military and civilian staff are affected.", "staff", "military and civilian staff"),
        ("There were more than 40 MEPs in the group.", "meps", "MEPs"),
        ("Pupils get two hours' PE a week.", "hours", "hours"),
        ("Five million lives could be saved by 2015 and five million thereafter.", "lives", "lives"),
        # politics/271, business/126: a descriptive adjective is part of the counted noun, not its head.
        (
            "And the Liberal Democrats will take three key seats from the Conservatives, leaving the Tories with just 163 MPs,"
            " two less than they returned atLabour's 1997 landslide and their worst showing since 1906.",
            "seats",
            "key seats",
        ),
        ("The group is the first of Britain's five big banks to report 2004 results.", "banks", "big banks"),
    ],
)
def test_the_counted_noun_is_whole(sentence: str, unit: str, noun: str) -> None:
    q = parse_quantities(sentence)[0]
    assert (q.unit, q.noun) == (unit, noun)
    assert q.text.endswith(noun)


def test_a_comparative_after_a_number_counts_nothing() -> None:
    # politics/271: "two less than they returned" is a difference, no count of "less".
    found = parse_quantities(
        "And the Liberal Democrats will take three key seats from the Conservatives, leaving the Tories with just 163 MPs,"
        " two less than they returned atLabour's 1997 landslide and their worst showing since 1906."
    )
    assert [(q.text, q.value, q.unit, q.hedge, q.noun) for q in found] == [
        ("three key seats", 3, "seats", "exact", "key seats"),
        ("163 MPs", 163, "mps", "exact", "MPs"),
        ("two", 2, "", "exact", ""),
    ]
    # tech/199: "less" before a modifier stays part of the counted noun.
    q = parse_quantities(
        "After all, he asked -- what aid group could possibly give expensive computers to 250 million less fortunate Indians,"
        " let alone the billions of poor people around the world?"
    )[0]
    assert (q.value, q.unit, q.noun) == (250e6, "indians", "less fortunate Indians")


@pytest.mark.parametrize(
    ("sentence", "unit", "noun"),
    [
        # After one, the second of two nouns side by side is the head.
        ("There was one prison suicide every four days.", "suicide", "prison suicide"),
        ("He admitted one felony count of fraud.", "count", "felony count"),
        ("At each station one election official will scan the cards.", "official", "election official"),
        # After any other number the singular noun is the measure of a compound modifier.
        ("Workers began a 24 hour strike.", "hour", "hour"),
        ("That little three letter word.", "letter", "letter"),
        # After one, a word that is no noun does not become the head.
        ("Woods finished one shot better than Els.", "shot", "shot"),
        ("The rating is one notch below investment grade.", "notch", "notch"),
        ("If there is one thing certain, it is this.", "thing", "thing"),
        # business/440: a descriptive adjective before the two nouns is none of them.
        (
            "One small bright spot for US policy-makers was a slight decline in the deficit with China, often blamed for job losses and other economic woes.",
            "spot",
            "small bright spot",
        ),
    ],
)
def test_the_head_of_a_singular_count(sentence: str, unit: str, noun: str) -> None:
    q = parse_quantities(sentence)[0]
    assert (q.unit, q.noun) == (unit, noun)


@pytest.mark.parametrize(
    ("sentence", "value", "unit", "noun"),
    [
        ('Data suggested 1,500 "safety whistleblowers" had lost their jobs.', 1500, "whistleblowers", "safety whistleblowers"),
        ('It flagged up eight "critical" security holes.', 8, "holes", "critical security holes"),
        ('He said "several hundred" people are plotting attacks.', 300, "people", "people"),
        ('He listed the nine "most useless quangos".', 9, "quangos", "most useless quangos"),
    ],
)
def test_a_quoted_counted_noun_is_read_through_its_quotation_marks(sentence: str, value: float, unit: str, noun: str) -> None:
    q = parse_quantities(sentence)[0]
    assert (q.value, q.unit, q.noun) == (value, unit, noun)


def test_a_closing_quotation_mark_does_not_join_the_narrative_to_a_number() -> None:
    # The number is not quoted itself: what follows the closing mark is not what it counts.
    assert [(q.value, q.unit) for q in parse_quantities('"We lost 300" critics say.')] == [(300, "")]


@pytest.mark.parametrize(
    ("sentence", "low", "high", "unit"),
    [
        ('Only "six or seven million" had been spent.', 6e6, 7e6, ""),
        ("Players could lose three or four years of their careers.", 3, 4, "years"),
        ("We would speak three or four times a week.", 3, 4, "times"),
    ],
)
def test_a_lower_end_that_borrows_the_upper_ends_scale_and_unit_is_a_range(sentence: str, low: float, high: float, unit: str) -> None:
    found = parse_quantities(sentence)
    assert [(q.value, q.unit, q.hedge) for q in found] == [(low, unit, "at-least"), (high, unit, "at-most")]


def test_two_whole_figures_joined_by_or_are_two_figures() -> None:
    found = parse_quantities("He would raise taxes by £10bn or £11bn.")
    assert [(q.value, q.hedge) for q in found] == [(10e9, "exact"), (11e9, "exact")]
    assert [q.hedge for q in parse_quantities("They scored 5 or more goals.")] == ["at-least"]


def test_an_adverb_is_not_a_counted_noun() -> None:
    found = parse_quantities("Five million lives could be saved by 2015 and five million thereafter.")
    assert [(q.value, q.unit, q.noun) for q in found] == [(5e6, "lives", "lives"), (5e6, "", "")]


def test_a_size_class_is_not_an_amount() -> None:
    assert parse_quantities("They ran multi-billion dollar advertising campaigns.") == []


def test_money_and_percentages_have_no_counted_noun() -> None:
    assert [(q.unit, q.noun) for q in parse_quantities("It cost $5 million, 3% of the budget, for 1,000 homes.")] == [
        ("USD", ""), ("percent", ""), ("homes", "homes"),
    ]
