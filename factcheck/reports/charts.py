"""Charts for the PDF report as inline SVG, drawn on the server (no JavaScript anywhere)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from html import escape

from django.utils.safestring import SafeString, mark_safe

INK = "#1f2933"
MUTED = "#6b7785"
GRID = "#d9dee3"
FOUND = "#8aa4bf"
CHECKED = "#c2410c"
# One colour per rating, True (green) through False (red), then Misleading and Unverifiable.
RATING_COLOURS = ["#15803d", "#65a30d", "#ca8a04", "#ea580c", "#b91c1c", "#7c3aed", "#64748b"]


def _text(x: float, y: float, content: str, *, anchor: str = "start", size: int = 11, fill: str = INK, weight: str = "normal") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="{fill}" text-anchor="{anchor}" '
        f'font-weight="{weight}" font-family="DejaVu Sans, sans-serif">{escape(content)}</text>'
    )


def _shorten(label: str, length: int) -> str:
    return label if len(label) <= length else label[: length - 1].rstrip() + "…"


def bar_chart(items: Sequence[tuple[str, int]], *, title: str, colours: Sequence[str] | None = None, width: int = 640) -> SafeString:
    """Horizontal bars, one per (label, count), the count written at the bar's end."""
    row, top, label_width = 22, 30, 190
    height = top + row * max(len(items), 1) + 10
    most = max((count for _, count in items), default=0)
    scale = (width - label_width - 60) / most if most else 0
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}">',
        _text(0, 16, title, size=13, weight="bold"),
    ]
    if not items or not most:
        parts.append(_text(0, top + 14, "Nothing to show for this scope.", fill=MUTED))
    for index, (label, count) in enumerate(items):
        y = top + index * row
        colour = colours[index % len(colours)] if colours else CHECKED
        parts.append(_text(label_width - 8, y + 14, _shorten(label, 30), anchor="end"))
        bar = count * scale
        parts.append(f'<rect x="{label_width}" y="{y + 3}" width="{bar:.1f}" height="{row - 8}" fill="{colour}"/>')
        parts.append(_text(label_width + bar + 6, y + 14, str(count), fill=MUTED))
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every text above is escaped


def time_chart(points: Sequence[tuple[date, int, int]], *, title: str, bucket: str, width: int = 640) -> SafeString:
    """Claims found and claims checked per bucket: paired columns, a legend, a few dates."""
    height, top, bottom, left = 230, 44, 36, 40
    plot_width, plot_height = width - left - 10, height - top - bottom
    most = max((max(found, checked) for _, found, checked in points), default=0)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}">',
        _text(0, 16, title, size=13, weight="bold"),
        f'<rect x="{left}" y="24" width="10" height="10" fill="{FOUND}"/>',
        _text(left + 14, 33, "claims found"),
        f'<rect x="{left + 110}" y="24" width="10" height="10" fill="{CHECKED}"/>',
        _text(left + 124, 33, "claims checked (verdicts published)"),
        _text(width - 10, 33, f"per {bucket}", anchor="end", fill=MUTED),
    ]
    if not points or not most:
        parts.append(_text(left, top + 20, "Nothing to show for this scope.", fill=MUTED))
        parts.append("</svg>")
        return mark_safe("".join(parts))  # noqa: S308
    baseline = top + plot_height
    for step in range(5):
        value = most * step / 4
        y = baseline - plot_height * step / 4
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - 10}" y2="{y:.1f}" stroke="{GRID}" stroke-width="0.6"/>')
        parts.append(_text(left - 4, y + 4, f"{value:.0f}" if most >= 4 or step in (0, 4) else "", anchor="end", size=9, fill=MUTED))
    slot = plot_width / len(points)
    bar = max(min(slot * 0.4, 18), 0.8)
    label_every = max(1, round(len(points) / 8))
    for index, (start, found, checked) in enumerate(points):
        x = left + index * slot + (slot - 2 * bar) / 2
        for offset, value, colour in ((0, found, FOUND), (bar, checked, CHECKED)):
            h = plot_height * value / most
            parts.append(f'<rect x="{x + offset:.1f}" y="{baseline - h:.1f}" width="{bar:.1f}" height="{h:.1f}" fill="{colour}"/>')
        if index % label_every == 0:
            label = start.strftime("%b %Y") if bucket == "month" else start.strftime("%d %b")
            parts.append(_text(left + index * slot + slot / 2, baseline + 14, label, anchor="middle", size=9, fill=MUTED))
    parts.append(f'<line x1="{left}" y1="{baseline}" x2="{width - 10}" y2="{baseline}" stroke="{INK}" stroke-width="0.8"/>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every text above is escaped
