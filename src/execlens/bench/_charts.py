"""The report's charts as inline SVG: a few kilobytes each, no script.

A report used to embed plotly's JavaScript (about 4.8 MB) in every page for two bar
charts.  These are drawn here instead: grouped bars (one group per category, one bar per
series) with optional markers (a published reference, a constant-answer baseline) on the
same axis, a legend, and each value in a ``<title>`` tooltip.  Every series is a
``<g class="series" data-name="...">``, so a reader (or a test) finds them by name.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["BarChart", "Series", "render_bar_chart"]

_COLOURS = ("#2563eb", "#d97706", "#059669", "#dc2626", "#7c3aed", "#0891b2", "#db2777")
_WIDTH, _HEIGHT = 900, 340
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 16, 36, 96


@dataclass(frozen=True)
class Series:
    """One named series: a value per category (``None``: none), drawn as bars or as
    markers (``marker``: ``"diamond"`` or ``"x"``)."""

    name: str
    values: Sequence[float | None]
    marker: str | None = None


@dataclass(frozen=True)
class BarChart:
    """Categories along the x axis, series of values over them."""

    title: str
    categories: Sequence[str]
    series: Sequence[Series] = field(default_factory=tuple)
    y_title: str = ""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _ticks(top: float) -> list[float]:
    """Round y-axis ticks from 0 to at least ``top``."""
    if top <= 0:
        return [0.0, 1.0]
    step = 10 ** len(str(int(top))) / 10
    for factor in (1, 2, 5, 10):
        if top / (step * factor / 10) <= 8:
            step = step * factor / 10
            break
    ticks = [0.0]
    while ticks[-1] < top:
        ticks.append(round(ticks[-1] + step, 6))
    return ticks


def _marker(kind: str, x: float, y: float, colour: str) -> str:
    if kind == "x":
        d = 5
        return (
            f'<path d="M{x - d},{y - d}L{x + d},{y + d}M{x - d},{y + d}L{x + d},{y - d}" '
            f'stroke="{colour}" stroke-width="2.5"/>'
        )
    d = 7
    return f'<path d="M{x},{y - d}L{x + d},{y}L{x},{y + d}L{x - d},{y}Z" fill="{colour}"/>'


def render_bar_chart(chart: BarChart) -> str:
    """The chart as one ``<svg>`` element (responsive: it scales to its container)."""
    bars = [s for s in chart.series if s.marker is None]
    values = [v for s in chart.series for v in s.values if v is not None]
    ticks = _ticks(max(values, default=0.0))
    top = ticks[-1] or 1.0
    plot_w, plot_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM
    count = max(len(chart.categories), 1)
    group = plot_w / count
    bar_w = group * 0.8 / max(len(bars), 1)

    def y_of(value: float) -> float:
        return _TOP + plot_h * (1 - value / top)

    legend = _legend(chart.series)
    height = max(_HEIGHT, legend[-1][2] + 12 if legend else _HEIGHT)
    parts = [
        f'<svg class="chart" viewBox="0 0 {_WIDTH} {height}" role="img" '
        f'aria-label="{_e(chart.title)}" xmlns="http://www.w3.org/2000/svg" '
        'style="width:100%;max-width:900px;height:auto;font:12px sans-serif">',
        f'<text x="{_LEFT}" y="20" font-weight="bold">{_e(chart.title)}</text>',
    ]
    for tick in ticks:
        y = y_of(tick)
        parts.append(
            f'<line x1="{_LEFT}" x2="{_WIDTH - _RIGHT}" y1="{y:.1f}" y2="{y:.1f}" '
            'stroke="#e5e7eb"/>'
            f'<text x="{_LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{tick:g}</text>'
        )
    if chart.y_title:
        parts.append(
            f'<text transform="translate(14 {_TOP + plot_h / 2}) rotate(-90)" '
            f'text-anchor="middle">{_e(chart.y_title)}</text>'
        )
    for index, category in enumerate(chart.categories):
        x = _LEFT + group * (index + 0.5)
        parts.append(
            f'<text x="{x:.1f}" y="{_TOP + plot_h + 16}" text-anchor="middle" '
            f'class="category">{_e(category)}</text>'
        )
    for number, series in enumerate(chart.series):
        colour = _COLOURS[number % len(_COLOURS)]
        parts.append(f'<g class="series" data-name="{_e(series.name)}">')
        slot = bars.index(series) if series.marker is None else 0
        for index, value in enumerate(series.values):
            if value is None or index >= count:
                continue
            label = f"{series.name} · {chart.categories[index]}: {value:g}"
            if series.marker is None:
                x = _LEFT + group * index + group * 0.1 + bar_w * slot
                y = y_of(value)
                parts.append(
                    f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" '
                    f'height="{_TOP + plot_h - y:.1f}" fill="{colour}">'
                    f"<title>{_e(label)}</title></rect>"
                )
            else:
                x = _LEFT + group * (index + 0.5)
                parts.append(
                    f"<g><title>{_e(label)}</title>"
                    f"{_marker(series.marker, x, y_of(value), colour)}</g>"
                )
        parts.append("</g>")
    for number, (series, x, y) in enumerate(legend):
        colour = _COLOURS[number % len(_COLOURS)]
        swatch = (
            f'<rect x="{x:.1f}" y="{y - 9}" width="10" height="10" fill="{colour}"/>'
            if series.marker is None
            else _marker(series.marker, x + 5, y - 4, colour)
        )
        parts.append(
            f'<g class="legend">{swatch}<text x="{x + 14:.1f}" y="{y}">{_e(series.name)}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _legend(series: Sequence[Series]) -> list[tuple[Series, float, int]]:
    """Where each series' legend entry goes: rows under the plot, wrapped."""
    placed = []
    x, y = float(_LEFT), _HEIGHT - _BOTTOM + 44
    for entry in series:
        width = 24 + 7 * len(entry.name)
        if x > _LEFT and x + width > _WIDTH - _RIGHT:
            x, y = float(_LEFT), y + 18
        placed.append((entry, x, y))
        x += width
    return placed
