"""A bar plot drawn with block characters: a measured value against concurrency."""

from __future__ import annotations

import math
from dataclasses import dataclass

from rich.text import Text
from textual.widget import Widget

from statedump.tui.widgets import stylesheet

EIGHTHS = " ▁▂▃▄▅▆▇█"
BAR_STYLE = "cyan"
BASELINE_STYLE = "magenta"


@dataclass(frozen=True)
class Point:
    """One bar: a benchmark's value at its concurrency."""

    concurrency: int
    value: float
    baseline: bool
    record_id: str


def number(value: float) -> str:
    """A value short enough for an axis: 2100 -> 2.1k."""
    if abs(value) >= 10_000:
        return f"{value / 1000:.0f}k"
    if abs(value) >= 1000:
        return f"{value / 1000:.1f}k"
    return f"{value:.0f}" if value == int(value) else f"{value:.3g}"


def draw(title: str, points: list[Point], width: int, height: int) -> Text:
    """The plot as lines of text: title, bars with a value above each, axis, concurrency labels."""
    out = Text(no_wrap=True, overflow="crop")
    out.append(title + "\n", style="bold")
    if not points:
        out.append("nothing to plot", style="dim")
        return out
    rows = max(2, height - 4)
    top = max(p.value for p in points) or 1.0
    axis = max(len(number(top)), 1) + 1
    slot = max(3, min(8, (width - axis - 1) // len(points)))
    bar = max(1, slot - 1)
    # Bars that would not fit are left out rather than squeezed to nothing.
    shown = points[: max(1, (width - axis - 1) // slot)]
    # The tallest bar leaves one row above it for its value.
    levels = [p.value / top * (rows - 1) for p in shown]
    label_rows = [math.ceil(level) for level in levels]
    for r in range(rows - 1, -1, -1):
        label = number(top) if r == rows - 1 else ("0" if r == 0 else "")
        out.append(label.rjust(axis - 1) + "│", style="dim")
        for p, level, label_row in zip(shown, levels, label_rows, strict=True):
            style = BASELINE_STYLE if p.baseline else BAR_STYLE
            if level >= r + 1:
                out.append("█" * bar, style=style)
            elif level > r:
                out.append(EIGHTHS[max(1, int((level - r) * 8))] * bar, style=style)
            elif r == label_row:
                out.append(number(p.value)[:bar].center(bar), style="bold")
            else:
                out.append(" " * bar)
            out.append(" ")
        out.append("\n")
    out.append(" " * (axis - 1) + "└" + "─" * (slot * len(shown)) + "\n", style="dim")
    out.append(" " * axis)
    for p in shown:
        mark = "◆" if p.baseline else ""
        out.append((str(p.concurrency) + mark)[:bar].center(bar) + " ", style=BASELINE_STYLE if p.baseline else "")
    out.append("\n" + " " * axis)
    out.append("concurrency   ", style="dim")
    out.append("█ measured  ", style=BAR_STYLE)
    out.append("█◆ baseline", style=BASELINE_STYLE)
    if len(shown) < len(points):
        out.append(f"  (+{len(points) - len(shown)} not shown)", style="dim")
    return out


class BenchPlot(Widget):
    """Bars of one metric against concurrency, baselines in their own colour and marked ◆."""

    DEFAULT_CSS = stylesheet(__file__)

    def __init__(self, title: str, points: list[Point], *, id: str | None = None):
        super().__init__(id=id)
        self.heading = title
        self.points = points

    def render(self) -> Text:
        return draw(self.heading, self.points, self.size.width, self.size.height)
