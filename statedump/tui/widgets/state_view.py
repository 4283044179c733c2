"""The State view: the state document, as `statedump render` writes it, drawn as Markdown.

A session of thousands of records makes a document of tens of thousands of lines, and
Textual's Markdown widget builds a widget per block. So the document is cut into
pieces at block boundaries and a piece is drawn only when the reader scrolls near it.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from statedump.render import render_markdown
from statedump.tui.widgets import stylesheet
from statedump.tui.widgets.session_view import SessionView

PIECE_LINES = 60
"""A piece of the document ends at the first blank line (outside a code block) after this many lines."""


def pieces(document: str, size: int = PIECE_LINES) -> list[str]:
    """The document cut at blank lines outside fenced code, each piece at least `size` lines."""
    out: list[str] = []
    current: list[str] = []
    fence: str | None = None
    for line in document.split("\n"):
        stripped = line.lstrip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[: len(stripped) - len(stripped.lstrip(stripped[0]))]
        elif fence is not None and stripped.startswith(fence) and not stripped.strip(fence[0]):
            fence = None
        if not line.strip() and fence is None and len(current) >= size:
            out.append("\n".join(current))
            current = []
            continue
        current.append(line)
    if any(line.strip() for line in current):
        out.append("\n".join(current))
    return out


class StateView(SessionView):
    """The rendered state document. Record text was escaped by the renderer, so it
    shows as written; links are not followed into a browser."""

    DEFAULT_CSS = stylesheet(__file__)
    MAIN = "#state-scroll"

    def compose(self) -> ComposeResult:
        self._pieces = pieces(render_markdown(self.state))
        self._shown = 0
        yield VerticalScroll(id="state-scroll")

    async def on_mount(self) -> None:
        scroll = self.query_one("#state-scroll", VerticalScroll)
        await self._more()
        self.watch(scroll, "scroll_y", self._near_end, init=False)

    @property
    def document(self) -> str:
        """The whole Markdown source, drawn or not."""
        return "\n\n".join(self._pieces)

    async def _more(self) -> None:
        if self._shown < len(self._pieces):
            piece = Markdown(id=f"state-doc-{self._shown}", classes="state-doc", open_links=False)
            self._shown += 1
            await self.query_one("#state-scroll", VerticalScroll).mount(piece)
            await piece.update(self._pieces[self._shown - 1])
            # Once laid out, the piece may still leave the screen short of text: draw the next.
            self.call_after_refresh(self._near_end)

    async def _near_end(self) -> None:
        scroll = self.query_one("#state-scroll", VerticalScroll)
        if scroll.max_scroll_y - scroll.scroll_y < 2 * max(scroll.size.height, 10):
            await self._more()
