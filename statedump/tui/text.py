"""Record text made safe for the screen.

Every string that came from a record reaches a widget through these helpers as a
`rich.text.Text`: Textual reads a plain `str` as markup, so `[bold red]` inside a
record would turn into style, and control characters would reach the terminal.
"""

from __future__ import annotations

from rich.text import Text

from statedump.core.render.markup import visible

STATUS_STYLES = {
    "works": "bold green",
    "fails": "bold red",
    "partial": "bold yellow",
    "untested": "dim",
    "accepted": "green",
    "rejected": "red",
    "superseded": "dim",
    "proposed": "yellow",
    "done": "green",
    "blocked": "red",
    "dropped": "dim",
    "in-progress": "cyan",
    "ruled-out": "dim",
    "stale": "yellow",
    "invalid": "red",
}
"""Colours by status; a status not listed keeps the default style."""


def plain(value: str | None, style: str = "") -> Text:
    """`value` shown literally: no markup, control characters as visible symbols."""
    return Text(visible(value or ""), style=style)


def line(value: str | None, style: str = "") -> Text:
    """`value` as one line: runs of white space (newlines too) become one space."""
    return Text(" ".join(visible(value or "").split()), style=style, no_wrap=True, overflow="ellipsis")


def status(value: str) -> Text:
    """A status word in its colour."""
    return Text(value, style=STATUS_STYLES.get(value, ""))


def joined(parts: list[Text | str], sep: str = "\n") -> Text:
    """Pieces put together; `str` pieces are trusted labels written by this package."""
    return Text(sep).join(Text(p) if isinstance(p, str) else p for p in parts)
