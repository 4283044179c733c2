"""The Records view: every record in a table, filtered by kind, status and text, with a detail pane."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.timer import Timer
from textual.widgets import DataTable, Input, Select, Static

from statedump.core.errors import StatedumpError
from statedump.models import KINDS
from statedump.models.state import SessionState
from statedump.services.query import filter_records
from statedump.tui import text
from statedump.tui.widgets import stylesheet
from statedump.tui.widgets.record_detail import RecordDetail
from statedump.tui.widgets.session_view import SessionView

# Typing in the search box refilters once the keys pause, not on every key.
SEARCH_DELAY = 0.15


class RecordsView(SessionView):
    """A table of records (one row each, no widget per record) and the selected record's detail."""

    DEFAULT_CSS = stylesheet(__file__)
    MAIN = "#records-table"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("k", "pick_kind", "Kind"),
        Binding("s", "pick_status", "Status"),
        Binding("x", "clear_filters", "Clear"),
        Binding("l", "links", "Links"),
        Binding("c", "change_status", "Set status", show=False),  # in the `?` panel; the footer is full at 80 columns
        # From the filters: back to the table; after following links: back to the record
        # you came from; else the screen's Escape (back to the sessions list).
        Binding("escape", "escape", "Back", show=False),
    ]

    def compose(self) -> ComposeResult:
        kinds = sorted({r.kind for r in self.state.records}, key=list(KINDS).index)
        statuses = list(dict.fromkeys(s for k in kinds for s in KINDS[k].STATUSES if any(r.status == s for r in self.state.records)))
        with Horizontal(id="records-filters"):
            search = Input(placeholder="/ search id, title, text", id="records-search")
            search.cursor_blink = False
            yield search
            yield Select([(k, k) for k in kinds], prompt="any kind", id="records-kind", compact=True)
            yield Select([(s, s) for s in statuses], prompt="any status", id="records-status", compact=True)
            yield Static(id="records-count")
        with Horizontal(id="records-body"):
            yield DataTable(id="records-table", cursor_type="row", zebra_stripes=True)
            yield RecordDetail(self.reader, self.session_id, self.state, id="records-detail")

    def on_mount(self) -> None:
        self._timer: Timer | None = None
        self._trail: list[str] = []  # the records left by following links, newest last
        table = self.query_one("#records-table", DataTable)
        table.add_column("Kind", key="kind", width=11)
        table.add_column("Status", key="status", width=11)
        table.add_column("Title", key="title", width=44)
        table.add_column("Id", key="id", width=30)
        self.refill()

    # -- filtering -----------------------------------------------------------
    def _filters(self) -> tuple[list[str], list[str], str]:
        kind = self.query_one("#records-kind", Select).value
        status = self.query_one("#records-status", Select).value
        grep = self.query_one("#records-search", Input).value.strip()
        return ([kind] if isinstance(kind, str) else [], [status] if isinstance(status, str) else [], grep)

    def refill(self) -> None:
        """Rebuild the table's rows from the filters, keeping the selected record when it still shows."""
        table = self.query_one("#records-table", DataTable)
        keep = self.current_id()
        kinds, statuses, grep = self._filters()
        shown = filter_records(self.state.records, kinds=kinds, statuses=statuses, grep=grep or None)
        table.clear()
        for r in shown:
            table.add_row(Text(r.kind, style="italic"), text.status(r.status), text.line(r.title), text.line(r.id), key=r.id)
        total = len(self.state.records)
        self.query_one("#records-count", Static).update(
            f"{len(shown)}/{total}" if len(shown) != total else f"{total} record{'s' if total != 1 else ''}"
        )
        if keep is not None and any(r.id == keep for r in shown):
            table.move_cursor(row=table.get_row_index(keep), animate=False)
        self._show_current()

    def current_id(self) -> str | None:
        """The id of the record under the cursor."""
        table = self.query_one("#records-table", DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return key if isinstance(key, str) else None

    def _show_current(self) -> None:
        rid = self.current_id()
        self.query_one(RecordDetail).show(self.state.get(rid) if rid else None)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "records-search":
            if self._timer is not None:
                self._timer.stop()
            self._timer = self.set_timer(SEARCH_DELAY, self.refill)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if self._timer is not None:
            self._timer.stop()
        self.refill()
        self.query_one("#records-table", DataTable).focus()

    def on_select_changed(self, event: Select.Changed) -> None:
        self.refill()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_current()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.query_one(RecordDetail).focus_links()

    # -- following links -----------------------------------------------------
    def on_record_detail_link_followed(self, event: RecordDetail.LinkFollowed) -> None:
        here = self.current_id()
        if here is not None and here != event.record_id and self.state.get(event.record_id) is not None:
            self._trail.append(here)
        self.show_record(event.record_id)

    def refresh_state(self, state: SessionState) -> None:
        """Show `state` (the store changed underneath) keeping the filters, the selected record
        and the trail of followed links."""
        self.state = state
        self.query_one(RecordDetail).use_state(state)
        kinds = sorted({r.kind for r in state.records}, key=list(KINDS).index)
        statuses = list(dict.fromkeys(s for k in kinds for s in KINDS[k].STATUSES if any(r.status == s for r in state.records)))
        with self.prevent(Select.Changed):
            for selector, values in (("#records-kind", kinds), ("#records-status", statuses)):
                select = self.query_one(selector, Select)
                kept = select.value
                select.set_options([(v, v) for v in values])
                if isinstance(kept, str) and kept in values:
                    select.value = kept
        self._trail = [rid for rid in self._trail if state.get(rid) is not None]
        self.refill()

    def on_record_detail_left(self, event: RecordDetail.Left) -> None:
        self.query_one("#records-table", DataTable).focus()

    def show_record(self, record_id: str) -> None:
        """Put the cursor on a record, clearing the filters when they hide it."""
        if self.state.get(record_id) is None:
            self.notify(f"No record {visible_id(record_id)} in this session.", severity="warning", markup=False)
            return
        table = self.query_one("#records-table", DataTable)
        if record_id not in table.rows:
            self._clear_filters()
        table.move_cursor(row=table.get_row_index(record_id), animate=False)
        table.focus()
        self._show_current()

    def _clear_filters(self) -> None:
        with self.prevent(Input.Changed, Select.Changed):
            self.query_one("#records-search", Input).value = ""
            self.query_one("#records-kind", Select).clear()
            self.query_one("#records-status", Select).clear()
        self.refill()

    # -- actions ---------------------------------------------------------------
    def focus_search(self) -> None:
        """Put the keyboard in the search box."""
        self.query_one("#records-search", Input).focus()

    def action_pick_kind(self) -> None:
        select = self.query_one("#records-kind", Select)
        select.focus()
        select.expanded = True

    def action_pick_status(self) -> None:
        select = self.query_one("#records-status", Select)
        select.focus()
        select.expanded = True

    def action_clear_filters(self) -> None:
        self._clear_filters()
        self.query_one("#records-table", DataTable).focus()

    def _in_filters(self) -> bool:
        filters = self.query_one("#records-filters")
        focused = self.screen.focused
        return focused is not None and (focused is filters or filters in focused.ancestors)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "escape":
            return self._in_filters() or bool(self._trail)  # else the screen's Escape runs
        return True

    def action_escape(self) -> None:
        if self._in_filters():
            self.action_to_table()
            return
        while self._trail:
            back = self._trail.pop()
            if self.state.get(back) is not None:
                self.show_record(back)
                return

    def action_to_table(self) -> None:
        self.query_one("#records-table", DataTable).focus()

    def action_change_status(self) -> None:
        """Pick a new status for the selected record; it is committed as a CLI `status` would be,
        and the view shows it when the store changes (the session screen follows the store)."""
        from statedump.tui.screens.status_pick import StatusPick

        rid = self.current_id()
        record = self.state.get(rid) if rid else None
        if record is None:
            return

        def chosen(status: str | None) -> None:
            if status is not None and status != record.status:
                self._set_status(record.id, status)

        self.app.push_screen(StatusPick(record), chosen)

    @work(thread=True, group="set-status")
    def _set_status(self, record_id: str, status: str) -> None:
        from statedump.services.changes import set_status

        try:
            self.reader(set_status, self.session_id, record_id, status, "tui")
        except StatedumpError as err:
            self.app.call_from_thread(self.notify, str(err), severity="error", markup=False)
            return
        self.app.call_from_thread(self.notify, f"{record_id}: {status}", markup=False)

    def action_links(self) -> None:
        self.query_one(RecordDetail).focus_links()


def visible_id(value: str) -> str:
    """An id from a link, safe to print (links may name ids that no record has)."""
    return text.line(value).plain
