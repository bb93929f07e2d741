"""The PDF report: an HTML template laid out by WeasyPrint, charts inline as SVG."""

from __future__ import annotations

from datetime import datetime

from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import mark_safe
from weasyprint import HTML

from factcheck.claims.models import Verdict
from factcheck.publishing.models import Organisation
from factcheck.reports import charts
from factcheck.reports.claimreview import BEST_RATING, RATING_MEANING, WORST_RATING
from factcheck.reports.selectors import ReportData


def css_string(text: str) -> str:
    """A CSS string literal: quotes, backslashes and line breaks escaped, '<' too (it sits in <style>)."""
    escaped = "".join(f"\\{ord(char):x} " if char in '"\\<>\n\r' else char for char in text)
    return f'"{escaped}"'


def report_html(data: ReportData, *, organisation: Organisation, generated_by: str, generated_at: datetime | None = None) -> str:
    scale = [
        (str(label), organisation.rating_value(value), RATING_MEANING[value]) for value, label in Verdict.Rating.choices
    ]
    context = {
        "data": data,
        "organisation": organisation,
        "footer_css": mark_safe(css_string(f"{organisation.name} · verdict report")),  # noqa: S308 - escaped above
        "generated_by": generated_by,
        "generated_at": generated_at or timezone.now(),
        "scale": scale,
        "best_rating": BEST_RATING,
        "worst_rating": WORST_RATING,
        "chart_rating": charts.bar_chart(data.by_rating, title="Verdicts by rating", colours=charts.RATING_COLOURS),
        "chart_outlet": charts.bar_chart(data.by_outlet, title="Verdicts by outlet"),
        "chart_speaker": charts.bar_chart(data.by_speaker, title="Verdicts by speaker"),
        "chart_time": charts.time_chart(data.over_time, title="Claims found and checked over time", bucket=data.bucket),
    }
    return render_to_string("reports/report_pdf.html", context)


def render_pdf(html: str) -> bytes:
    return HTML(string=html).write_pdf()
