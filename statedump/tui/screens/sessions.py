"""The first screen: every session in the store."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from statedump.core.errors import StatedumpError
from statedump.tui import text
from statedump.tui.reader import Reader

if TYPE_CHECKING:
    from statedump.tui.app import StatedumpApp


class SessionsScreen(Screen[None]):
    """A table of sessions; Enter opens one."""

    CSS_PATH = "sessions.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "open", "Open session", priority=True)]

    def __init__(self, reader: Reader):
        super().__init__()
        self.reader = reader
        self.store = reader.store

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(text.joined(["Sessions in the store ", text.plain(self.store.root.name, "bold")], sep=""), id="sessions-where")
        yield DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.sub_title = "sessions"
        table = self.query_one("#sessions-table", DataTable)
        table.add_column("Session")
        table.add_column("Title", width=44)
        table.add_columns("Status", "Started", "Model")
        for sid in self.store.session_ids():
            try:
                meta = self.store.load_session(sid)
            except StatedumpError as err:
                # One broken session.yaml must not hide the others; say what is wrong with it.
                table.add_row(text.line(sid, "bold"), text.line(str(err), "red"), Text("unreadable", style="red"), "-", "", key=sid)
                continue
            started = meta.started.strftime("%Y-%m-%d %H:%M") if meta.started else "-"
            table.add_row(text.line(sid, "bold"), text.line(meta.title), text.status(meta.status), started, text.line(meta.model), key=sid)
        table.focus()

    def action_open(self) -> None:
        table = self.query_one("#sessions-table", DataTable)
        if table.row_count:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
            if key is not None:
                self._app.open_session(key)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # A double click on a row.
        if event.row_key.value is not None:
            self._app.open_session(event.row_key.value)

    @property
    def _app(self) -> StatedumpApp:
        return cast("StatedumpApp", self.app)
