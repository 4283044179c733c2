"""Documents for a terminal, drawn by rich.

Rich's Markdown renderer treats record text as Markdown, never as rich markup, and
control characters were already made visible when the Markdown was built, so text
like `[bold red]` or an ANSI escape inside a record is shown literally.
"""

from __future__ import annotations

from rich.console import Console
from rich.markdown import Markdown
from rich.table import Table
from rich.text import Text

from statedump.core.render.handoff import TREND_HEADER, header_markdown, sections, state_markdown, trend_rows
from statedump.core.render.markdown import render_markdown
from statedump.core.render.markup import inline, visible
from statedump.models.reports import TREND_METRIC, Handoff
from statedump.models.state import SessionState


def print_markdown(text: str, console: Console) -> None:
    """Markdown built by statedump, drawn with headings, tables and code blocks."""
    console.print(Markdown(text, code_theme="ansi_dark", hyperlinks=False))


def print_terminal(state: SessionState, console: Console) -> None:
    """Print the state document to `console`."""
    print_markdown(render_markdown(state), console)


def print_handoff(h: Handoff, console: Console) -> None:
    """The handoff report: its Markdown sections, and the benchmark trend as a table
    instead of the Mermaid chart a terminal cannot draw."""
    print_markdown(header_markdown(h), console)
    for title, body in sections(h):
        if title != "Benchmark trend" or not h.trend:
            print_markdown(f"## {inline(title)}\n\n{body}", console)
            continue
        print_markdown(f"## {title}", console)
        grid = Table(*TREND_HEADER, title=f"{TREND_METRIC} by concurrency")
        for row in trend_rows(h.trend):
            grid.add_row(*(Text(visible(x)) for x in row))
        console.print(grid)
    print_markdown(state_markdown(h), console)
