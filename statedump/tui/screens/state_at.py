"""The state document as it was at one commit (a dump, or any commit of the history)."""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, LoadingIndicator

from statedump.core.errors import StatedumpError
from statedump.core.safetext import one_line
from statedump.models.state import SessionState
from statedump.services.history import state_at
from statedump.tui.reader import Reader
from statedump.tui.widgets.state_view import FIRST_SCREENS, DocumentPieces, StateView, document_pieces


class StateAtScreen(Screen[None]):
    """`statedump render --at REV`, drawn; Escape goes back to the history."""

    CSS_PATH = "state_at.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back to history")]

    def __init__(self, reader: Reader, session: str, sha: str, label: str):
        super().__init__()
        self.reader = reader
        self.session_id = session
        self.sha = sha
        self.label = label

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="state-at-body"):
            yield LoadingIndicator()
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.sub_title = one_line(f"state as of {self.label}")
        self._load()

    @work(thread=True, exclusive=True, group="state-at")
    def _load(self) -> None:
        try:
            state = self.reader(state_at, self.session_id, self.sha)
        except StatedumpError as err:
            self.app.call_from_thread(self.notify, str(err), severity="error", markup=False)
            return
        document = document_pieces(state, FIRST_SCREENS * max(self.app.size.height, 10))
        self.app.call_from_thread(self.call_later, self._loaded, state, document)

    async def _loaded(self, state: SessionState, document: DocumentPieces) -> None:
        body = self.query_one("#state-at-body", Vertical)
        await body.remove_children()
        view = StateView(self.reader, self.session_id, state, id="state-at-view")
        view.use(document)
        await body.mount(view)
        view.focus_main()
