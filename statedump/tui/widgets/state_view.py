"""The State view: the state document, as `statedump render` writes it, drawn as Markdown.

A session of thousands of records makes a document of tens of thousands of lines, and
Textual's Markdown widget builds a widget per block. So the document is cut into
pieces at block boundaries and a piece is drawn only when the reader scrolls near it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from statedump.core.render.markdown import render_markdown, render_parts
from statedump.models.state import SessionState
from statedump.tui.widgets import stylesheet
from statedump.tui.widgets.session_view import SessionView

PIECE_LINES = 30
"""A piece of the document ends at the first place it can (outside a code block) after this many lines."""

FIRST_SCREENS = 1
"""Lines of the document drawn when the view opens, in screen heights."""

_BULLET = ("- ", "* ", "+ ")
_TABLE_RULE = re.compile(r"^\|(?:\s*:?-+:?\s*\|)+\s*$")


def pieces(document: str, size: int = PIECE_LINES) -> list[str]:
    """The document cut, outside fenced code, into pieces of at least `size` lines (see `iter_pieces`)."""
    return list(iter_pieces(iter(document.split("\n")), size))


def iter_pieces(lines: Iterator[str], size: int = PIECE_LINES) -> Iterator[str]:
    """The pieces of the document whose lines are `lines`, each yielded once it is complete.

    A piece ends at a blank line, or inside a long list before a new item, or inside a long
    table between rows: one list of 800 instructions or a table of 3,000 benchmarks would
    otherwise be one piece, and Textual builds a widget for every item and cell of a piece.
    A table's continuation starts with the table's header again, so every part is a table.
    """
    current: list[str] = []
    fence: str | None = None
    header: list[str] = []  # the header and rule of the table being read, once both are seen
    previous = ""
    for line in lines:
        outside = fence is None  # of a fenced block, before this line
        stripped = line.lstrip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[: len(stripped) - len(stripped.lstrip(stripped[0]))]
        elif fence is not None and stripped.startswith(fence) and not stripped.strip(fence[0]):
            fence = None
        row = False  # a body row of a table whose header is known
        if not (line.startswith("|") and previous.startswith("|")):
            header = []
        elif not header:
            header = [previous, line] if _TABLE_RULE.match(line) else []
        else:
            row = True
        # Only a line at the left margin starts a new block: an indented one after a blank
        # line still belongs to the list item above it.
        if outside and line[:1].strip() and not previous.strip():
            blank = 0
            while current and not current[-1].strip():
                current.pop()
                blank += 1
            if len(current) >= size:
                yield "\n".join(current)
                current = []
            else:
                current += [""] * blank
        elif outside and len(current) >= size and (row or line.startswith(_BULLET)):
            yield "\n".join(current)
            current = list(header) if row else []
        current.append(line)
        previous = line
    if any(line.strip() for line in current):
        yield "\n".join(current)


def _document_lines(state: SessionState) -> Iterator[str]:
    """The lines of `render_markdown(state)`, a section rendered only when its lines are reached."""
    for number, part in enumerate(render_parts(state)):
        if number:
            yield ""
        yield from part.split("\n")
    yield ""


class DocumentPieces:
    """The pieces of a state document, rendered section by section as they are asked for.

    For 10,000 records the whole document takes half a second to render; the first screen
    needs only its first sections. The rest is rendered when the reader scrolls to it.
    """

    def __init__(self, state: SessionState):
        self._source = iter_pieces(_document_lines(state))
        self._made: list[str] = []

    def get(self, index: int) -> str | None:
        """Piece `index`, or None past the end."""
        while len(self._made) <= index:
            piece = next(self._source, None)
            if piece is None:
                return None
            self._made.append(piece)
        return self._made[index]

    def prepare(self, lines: int) -> None:
        """Render pieces until they hold at least `lines` lines (or the document ends)."""
        index, total = 0, 0
        while total < lines and (piece := self.get(index)) is not None:
            total += piece.count("\n") + 1
            index += 1


def document_pieces(state: SessionState, lines: int = 0) -> DocumentPieces:
    """The state document of `state` in pieces, the first `lines` lines' worth rendered now."""
    document = DocumentPieces(state)
    document.prepare(lines)
    return document


class StateView(SessionView):
    """The rendered state document. Record text was escaped by the renderer, so it
    shows as written; links are not followed into a browser."""

    DEFAULT_CSS = stylesheet(__file__)
    MAIN = "#state-scroll"

    _pieces: DocumentPieces | None = None
    _shown = 0

    def use(self, document: DocumentPieces | None) -> None:
        """Draw these pieces (from `document_pieces`, begun in a worker) instead of rendering the state here."""
        self._pieces = document

    def compose(self) -> ComposeResult:
        if self._pieces is None:
            self._pieces = document_pieces(self.state)
        yield VerticalScroll(id="state-scroll")

    async def on_mount(self) -> None:
        scroll = self.query_one("#state-scroll", VerticalScroll)
        # Fill a few screens at once rather than a piece per refresh, so that what the first
        # screen shows does not depend on how many refreshes happened before anyone looks.
        want, lines = FIRST_SCREENS * max(self.app.size.height, 10), 0
        while lines < want and self._pieces is not None and (piece := self._pieces.get(self._shown)) is not None:
            lines += piece.count("\n") + 1
            await self._more(chain=False)
        self.watch(scroll, "scroll_y", self._near_end, init=False)

    @property
    def document(self) -> str:
        """The whole Markdown source, drawn or not."""
        return render_markdown(self.state)

    async def _more(self, chain: bool = True) -> None:
        piece = self._pieces.get(self._shown) if self._pieces is not None else None
        if piece is not None:
            widget = Markdown(id=f"state-doc-{self._shown}", classes="state-doc", open_links=False)
            self._shown += 1
            await self.query_one("#state-scroll", VerticalScroll).mount(widget)
            await widget.update(piece)
            if chain:
                # Once laid out, the piece may still leave the screen short of text: draw the next.
                self.call_after_refresh(self._near_end)

    async def _near_end(self) -> None:
        scroll = self.query_one("#state-scroll", VerticalScroll)
        if scroll.max_scroll_y - scroll.scroll_y < FIRST_SCREENS * max(scroll.size.height, 10):
            await self._more()
