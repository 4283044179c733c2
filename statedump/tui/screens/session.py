"""One session in six views: State, Records, Matrix, Benchmarks, Decisions, History.

The session is read once, in a worker thread; each view is built the first time its
tab is shown, so opening a large session costs one read and one view.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, ClassVar, cast

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header, LoadingIndicator, Static, TabbedContent, TabPane

from statedump.core.errors import StatedumpError
from statedump.core.safetext import one_line
from statedump.models.state import SessionState
from statedump.services.review import load_effective
from statedump.tui import text
from statedump.tui.reader import Reader
from statedump.tui.screens.state_at import StateAtScreen
from statedump.tui.widgets.bench_view import BenchView
from statedump.tui.widgets.decisions_view import DecisionsView
from statedump.tui.widgets.history_view import HistoryView
from statedump.tui.widgets.matrix_view import MatrixView
from statedump.tui.widgets.records_view import RecordsView
from statedump.tui.widgets.session_view import SessionView
from statedump.tui.widgets.state_view import FIRST_SCREENS, DocumentPieces, StateView, document_pieces

if TYPE_CHECKING:
    from statedump.tui.app import StatedumpApp

VIEWS: dict[str, tuple[str, type[SessionView]]] = {
    "state": ("State", StateView),
    "records": ("Records", RecordsView),
    "matrix": ("Matrix", MatrixView),
    "benchmarks": ("Benchmarks", BenchView),
    "decisions": ("Decisions", DecisionsView),
    "history": ("History", HistoryView),
}
"""Tab id -> (label, view class), in tab order; keys 1-6 pick them."""

_VIEWS_GROUP = Binding.Group("views", compact=True)
REFRESH_EVERY = 1.0
"""Seconds between looks at the store for changes made elsewhere."""


class SessionScreen(Screen[None]):
    """Tabs over one session; the keys 1-6 switch views, `/` searches the records."""

    CSS_PATH = "session.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(i), f"show('{tab}')", label, group=_VIEWS_GROUP) for i, (tab, (label, _)) in enumerate(VIEWS.items(), 1)),
        Binding("slash", "search", "Find"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, reader: Reader, session: str):
        super().__init__()
        self.reader = reader
        self.session_id = session
        self.state: SessionState | None = None
        self._document: DocumentPieces | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(id="views"):
            for tab, (label, _) in VIEWS.items():
                yield TabPane(label, id=tab)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.sub_title = self.session_id
        self.query_one("#views", TabbedContent).active_pane.mount(LoadingIndicator())  # type: ignore[union-attr]
        self._stamp = self._store_stamp()
        self._reloading = False
        self._load()
        self.set_interval(REFRESH_EVERY, self._poll)

    # -- following the store ---------------------------------------------------------
    def _store_stamp(self) -> tuple[int, ...]:
        """When the session's folders last changed. Every write (an add from another shell,
        an agent over MCP, a pull) renames a file into one of them, which moves its mtime: a
        dozen stat calls a second, no git process."""
        folder = self.reader.store.session_dir(self.session_id)
        stamps = []
        with contextlib.suppress(OSError):
            stamps.append(folder.stat().st_mtime_ns)
            with os.scandir(folder) as entries:
                stamps += sorted(e.stat().st_mtime_ns for e in entries if e.is_dir(follow_symlinks=False))
        return tuple(stamps)

    def _poll(self) -> None:
        stamp = self._store_stamp()
        if stamp != self._stamp and self.state is not None and not self._reloading:
            self._stamp = stamp
            self._reloading = True
            self._reload()

    @work(thread=True, exclusive=True, group="reload-session")
    def _reload(self) -> None:
        try:
            self.reader.release()
            state = self.reader.load(load_effective, self.session_id)
            document = document_pieces(state, FIRST_SCREENS * max(self.app.size.height, 10))
        except StatedumpError:
            self._reloading = False  # a write half done, or a broken file: the next change tries again
            return
        self.app.call_from_thread(self.call_later, self._refreshed, state, document)

    async def _refreshed(self, state: SessionState, document: DocumentPieces) -> None:
        """Show the new state where the reader is: the same tab, the same record."""
        self.state, self._document = state, document
        self.sub_title = f"{self.session_id} · {len(state.records)} records"
        self.title = one_line(" ".join(state.session.title.split()))  # a title is text, never a terminal sequence
        active = self.query_one("#views", TabbedContent).active
        for view in list(self.query(SessionView)):
            if isinstance(view, RecordsView):
                view.refresh_state(state)
            else:
                await view.remove()  # built again, from the new state, when its tab is shown
        if active and active != "records":
            rebuilt = await self.view(active)
            if rebuilt is not None:
                rebuilt.focus_main()
        self._reloading = False

    def on_unmount(self) -> None:
        self.reader.release()

    @work(thread=True, exclusive=True, group="load-session")
    def _load(self) -> None:
        try:
            state = self.reader.load(load_effective, self.session_id)  # stale benchmarks as `check` sees them
        except StatedumpError as err:
            self.app.call_from_thread(self.call_later, self._failed, err)
            return
        # The start of the first tab's document is made here too, off the UI thread; the
        # rest is rendered when the reader scrolls to it (the whole takes as long as the read).
        self._document = document_pieces(state, FIRST_SCREENS * max(self.app.size.height, 10))
        self.app.call_from_thread(self.call_later, self._loaded, state)

    async def _failed(self, err: StatedumpError) -> None:
        # A session with a broken file cannot be shown; say which file, as the CLI would.
        await self.query(LoadingIndicator).remove()
        pane = self.query_one("#views", TabbedContent).active_pane
        if pane is not None:
            await pane.mount(
                Static(text.joined([Text("Cannot read this session:", style="bold red"), text.plain(str(err))]), id="load-error")
            )

    async def _loaded(self, state: SessionState) -> None:
        self.state = state
        title = one_line(" ".join(state.session.title.split()))
        self.sub_title = f"{self.session_id} · {len(state.records)} records"
        self.title = title
        await self.query(LoadingIndicator).remove()
        pane = self.query_one("#views", TabbedContent).active_pane
        if pane is not None and pane.id is not None:
            view = await self.view(pane.id)
            if view is not None:
                view.focus_main()

    # -- views -------------------------------------------------------------------
    async def view(self, tab: str) -> SessionView | None:
        """The view of a tab, built now if it has not been shown yet (None until the session is read)."""
        if self.state is None:
            return None
        pane = self.query_one(f"#{tab}", TabPane)
        found = pane.query(SessionView)
        if found:
            return found.first()
        view = VIEWS[tab][1](self.reader, self.session_id, self.state, id=f"{tab}-view")
        if isinstance(view, StateView):
            view.use(self._document)
        await pane.mount(view)
        return view

    async def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id is not None:
            await self.view(event.pane.id)

    async def show(self, tab: str) -> SessionView | None:
        """Switch to a tab and return its view."""
        self.query_one("#views", TabbedContent).active = tab
        view = await self.view(tab)
        if view is not None:
            view.focus_main()
        return view

    async def action_show(self, tab: str) -> None:
        await self.show(tab)

    async def action_search(self) -> None:
        view = await self.show("records")
        if isinstance(view, RecordsView):
            view.focus_search()

    def action_back(self) -> None:
        cast("StatedumpApp", self.app).show_sessions()

    def on_history_view_open_state(self, event: HistoryView.OpenState) -> None:
        self.app.push_screen(StateAtScreen(self.reader, self.session_id, event.sha, event.label))

    async def on_session_view_open_record(self, event: SessionView.OpenRecord) -> None:
        await self.open_record(event.record_id)

    async def open_record(self, record_id: str) -> None:
        """Show a record in the Records view."""
        view = await self.show("records")
        if isinstance(view, RecordsView):
            view.show_record(record_id)
