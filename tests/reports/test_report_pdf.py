"""The PDF report: rendered by WeasyPrint in the test, its text read back with pypdf."""

from __future__ import annotations

import io
import re
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, override_settings
from django.urls import reverse
from pypdf import PdfReader

from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Claim, Verdict
from factcheck.claims.queue import services as queue_services
from factcheck.claims.workflow import services
from factcheck.publishing.models import Organisation
from factcheck.reports import charts
from factcheck.reports.selectors import ReportScope, report_data
from tests.conftest import PERSONA_PASSWORD
from tests.reports.helpers import claim_in_article, publish

pytestmark = pytest.mark.django_db

PDF_URL = reverse("reports:report_pdf")


def login(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


def pdf_text(content: bytes) -> str:
    reader = PdfReader(io.BytesIO(content))
    return "\n".join(page.extract_text() or "" for page in reader.pages)


def flat(text: str) -> str:
    return " ".join(text.split())


def on(day: int, month: int = 3) -> datetime:
    return datetime(2026, month, day, 10, 0, tzinfo=UTC)


@pytest.fixture
def desk(reviewer, editor) -> dict[str, Claim]:  # type: ignore[no-untyped-def]
    """Four published verdicts in March (two outlets, three speakers), one in January,
    a draft awaiting approval, and claims nobody checked."""
    specs = [
        ("lyons", "ICE detained nearly 1,500 people in Boston in May.", "Todd Lyons", "Boston Herald", "false", "ICE's own figures say 1,100", 2),
        ("wu", "Boston's crime rate is the lowest in 20 years.", "Michelle Wu", "MassLive", "mostly_true", "Lowest since 2004, near enough", 5),
        ("kraft", "The city spent $40 million on shelters last year.", "Josh Kraft", "MassLive", "misleading", "A two-year total, not one year", 9),
        ("lyons2", "Sanctuary policies let 3,000 criminals go free.", "Todd Lyons", "Boston Herald", "unverifiable", "No record of releases exists", 12),
    ]
    claims: dict[str, Claim] = {}
    for key, sentence, speaker, outlet, rating, headline, day in specs:
        claim = claim_in_article(sentence=sentence, speaker=speaker, outlet=outlet, title=f"{outlet} story on {speaker}", published_at=on(day))
        publish(
            claim, author=reviewer, approver=editor, rating=rating, headline=headline, explanation=f"Explanation for {key}: the records show otherwise.",
            evidence=[("official_statistic", f"https://data.example.gov/{key}", f"Dataset {key}")],
        )
        Verdict.objects.filter(claim=claim).update(approved_at=on(day + 1))
        claims[key] = claim
    january = claim_in_article(sentence="Arrests doubled in January.", speaker="Todd Lyons", outlet="WBUR", published_at=on(5, month=1))
    publish(january, author=reviewer, approver=editor, rating="true", headline="January arrests did double")
    Verdict.objects.filter(claim=january).update(approved_at=on(6, month=1))
    claims["january"] = january
    draft = claim_in_article(sentence="Ten new ICE agents arrived.", speaker="Todd Lyons", published_at=on(3))
    services.claim_assign(claim=draft, actor=reviewer, assignee=reviewer)
    services.verdict_draft(claim=draft, actor=reviewer, rating="false", headline="Draft headline never published", explanation="x")
    claims["draft"] = draft
    for n in range(3):
        claims[f"new{n}"] = claim_in_article(sentence=f"Unchecked claim {n} with 12 numbers.", published_at=on(4 + n), status=Claim.Status.NEW)
    return claims


def test_period_report_has_cover_charts_and_every_verdict(desk, reviewer, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    Organisation.objects.filter(pk=1).update(name="Boston Desk")
    response = login(reviewer).get(PDF_URL + "?date_from=2026-03-01&date_to=2026-03-31")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"].startswith('attachment; filename="verdicts-report-')
    assert response.content.startswith(b"%PDF-")
    (tmp_path / "report.pdf").write_bytes(response.content)
    text = flat(pdf_text(response.content))

    # Cover: the scope and its figures (March: 4 published + draft + 3 new = 8 claims found).
    assert "Boston Desk" in text and "Verdict report" in text and "1 March 2026 – 31 March 2026" in text
    assert re.search(r"8 claims found in 8 appearances 4 verdicts published 1 claims in work now 0 claims dismissed", text), text[:600]
    assert "Misleading 1 2 The facts stated may be accurate" in text
    # Charts, drawn as SVG: titles, labels and counts are text in the PDF.
    for title in ("Verdicts by rating", "Claims found and checked over time", "Verdicts by outlet", "Verdicts by speaker"):
        assert title in text
    assert "Boston Herald 2" in text and "MassLive 2" in text and "Todd Lyons 2" in text
    # Each verdict: headline, claim, rating, explanation, evidence.
    for key, headline, rating in (("lyons", "ICE's own figures say 1,100", "False"), ("kraft", "A two-year total, not one year", "Misleading")):
        assert headline in text
        assert flat(desk[key].sentence) in text
        assert f"Explanation for {key}: the records show otherwise." in text
        assert f"Dataset {key}" in text and f"https://data.example.gov/{key}" in text
        assert rating in text
    assert "January arrests did double" not in text and "Draft headline never published" not in text
    assert text.index("ICE's own figures say 1,100") < text.index("A two-year total, not one year")  # approval order


def test_saved_view_report(desk, reviewer) -> None:  # type: ignore[no-untyped-def]
    view = queue_services.saved_view_create(user=reviewer, name="Lyons claims", query="speaker=lyons")
    client = login(reviewer)
    text = flat(pdf_text(client.get(PDF_URL + f"?view={view.pk}").content))
    assert "All time · saved view “Lyons claims”" in text
    assert "ICE's own figures say 1,100" in text and "No record of releases exists" in text and "January arrests did double" in text
    assert "Lowest since 2004" not in text and "A two-year total" not in text
    assert re.search(r"4 claims found in \d+ appearances? 3 verdicts published", text)
    # A view and a period together.
    text = flat(pdf_text(client.get(PDF_URL + f"?view={view.pk}&date_from=2026-03-01").content))
    assert "January arrests did double" not in text and "ICE's own figures say 1,100" in text


def test_report_data_counts_and_buckets(desk, reviewer) -> None:  # type: ignore[no-untyped-def]
    data = report_data(scope=ReportScope(date_from=date(2026, 3, 1), date_to=date(2026, 3, 14), values={}), user=reviewer)
    assert (data.claims_found, data.verdicts_published, data.open_work, data.bucket) == (8, 4, 1, "day")
    assert dict(data.by_rating) == {"True": 0, "Mostly true": 1, "Half true": 0, "Mostly false": 0, "False": 1, "Misleading": 1, "Unverifiable": 1}
    assert data.by_outlet == [("Boston Herald", 2), ("MassLive", 2)]
    points = {day: (found, checked) for day, found, checked in data.over_time}
    assert len(points) == 14 and points[date(2026, 3, 2)] == (1, 0) and points[date(2026, 3, 3)] == (1, 1) and points[date(2026, 3, 10)] == (0, 1)
    year = report_data(scope=ReportScope(date_from=date(2026, 1, 1), date_to=date(2026, 12, 31), values={}), user=reviewer)
    assert year.bucket == "week" and sum(checked for _, _, checked in year.over_time) == 5


def test_scope_errors_limits_and_access(desk, reviewer, editor, admin_user, outsider) -> None:  # type: ignore[no-untyped-def]
    client = login(reviewer)
    response = client.get(PDF_URL)
    assert response.status_code == 400 and "Choose a period, a saved view, or both." in response.content.decode()
    response = client.get(PDF_URL + "?date_from=2026-03-31&date_to=2026-03-01")
    assert response.status_code == 400 and "The end date must not be before the start date." in response.content.decode()
    assert client.get(PDF_URL + "?date_from=March").status_code == 400
    with override_settings(FACTCHECK_REPORT_MAX_VERDICTS=3):
        response = client.get(PDF_URL + "?date_from=2026-03-01")
        assert response.status_code == 400 and "This report would hold 4 verdicts; one report holds at most 3." in response.content.decode()
    others = queue_services.saved_view_create(user=editor, name="Mine", query="status=new")
    assert client.get(PDF_URL + f"?view={others.pk}").status_code == 404
    for user in (editor, admin_user):
        assert login(user).get(PDF_URL + "?date_from=2026-03-01").status_code == 200
    for url in (PDF_URL + "?date_from=2026-03-01", reverse("reports:report")):
        assert login(outsider).get(url).status_code == 403
        assert Client().get(url).status_code == 302
        assert client.post(url).status_code == 405
    form = client.get(reverse("reports:report"))
    assert form.status_code == 200 and 'action="/exports/report.pdf"' in form.content.decode()
    events = AuditEvent.objects.count()
    client.get(PDF_URL + "?date_from=2026-03-01")
    assert AuditEvent.objects.count() == events


def test_empty_scope_renders_a_report_that_says_so(reviewer) -> None:  # type: ignore[no-untyped-def]
    text = flat(pdf_text(login(reviewer).get(PDF_URL + "?date_from=2025-01-01&date_to=2025-01-31").content))
    assert "0 claims found in 0 appearances 0 verdicts published" in text and "No verdict was published in this scope." in text
    assert "Nothing to show for this scope." in text


def test_charts_escape_labels_and_scale_bars() -> None:
    svg = str(charts.bar_chart([("<script>x</script>", 4), ("B & C", 2)], title="T"))
    assert "<script>" not in svg and "&lt;script&gt;" in svg and "B &amp; C" in svg
    widths = [float(w) for w in re.findall(r'<rect x="190" y="[\d.]+" width="([\d.]+)"', svg)]
    assert len(widths) == 2 and widths[0] == pytest.approx(2 * widths[1])
    line = str(charts.time_chart([(date(2026, 3, 1), 3, 1), (date(2026, 3, 2), 0, 2)], title="T", bucket="day"))
    assert line.count("<rect") == 2 + 4 and "01 Mar" in line
