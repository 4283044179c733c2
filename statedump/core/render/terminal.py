"""The state document for a terminal, drawn by rich.

Rich's Markdown renderer treats record text as Markdown, never as rich markup, and
control characters were already made visible when the Markdown was built, so text
like `[bold red]` or an ANSI escape inside a record is shown literally.
"""

from __future__ import annotations

from rich.console import Console
from rich.markdown import Markdown

from statedump.core.render.markdown import render_markdown
from statedump.models.state import SessionState


def print_terminal(state: SessionState, console: Console) -> None:
    """Print the state document to `console` with headings, tables and code blocks drawn."""
    console.print(Markdown(render_markdown(state), code_theme="ansi_dark", hyperlinks=False))
