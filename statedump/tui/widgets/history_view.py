"""The History view: the session's commits as a timeline, dump tags marked, and the
record-level difference each commit made."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.timer import Timer
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from statedump.core.errors import StatedumpError
from statedump.core.layout import RecordRef
from statedump.core.render.history import short_value
from statedump.core.store.store import Store
from statedump.models.history import Entry, RecordDiff
from statedump.models.state import SessionState
from statedump.services.history import diff_states, record_at, resolve_ref, session_log, state_at
from statedump.services.refs import Dump, list_dumps
from statedump.tui import text
from statedump.tui.widgets import stylesheet
from statedump.tui.widgets.session_view import SessionView

# Moving through thousands of commits must not read two states per row passed.
DIFF_DELAY = 0.2
_CHANGE_STYLE = {"added": ("+", "green"), "removed": ("-", "red"), "changed": ("~", "yellow")}


def diff_text(diffs: list[RecordDiff]) -> Text:
    """Each record the commit added, removed or changed; changed fields as old -> new."""
    if not diffs:
        return Text("No record changed in this commit (the session itself, or files statedump does not read).", style="dim")
    parts: list[Text | str] = []
    for d in diffs:
        mark, style = _CHANGE_STYLE[d.change]
        parts.append(
            Text.assemble(
                (f"{mark} {d.change} ", f"bold {style}"), (f"{d.kind} ", "italic"), (d.id, "bold"), "  ", text.line(d.title, "dim")
            )
        )
        for f in d.fields:
            if d.change == "changed":
                parts.append(
                    Text.assemble(f"    {f.field}: ", text.line(short_value(f.old), "red"), " → ", text.line(short_value(f.new), "green"))
                )
            else:
                parts.append(Text.assemble(f"    {f.field}: ", text.line(short_value(f.new if d.change == "added" else f.old), style)))
    return text.joined(parts)


def touched_ids(entry: Entry) -> list[str]:
    """Ids of the records whose files the commit changed (a kind change touches two files, one id)."""
    return list(dict.fromkeys(ref.id for ref in map(RecordRef.parse, entry.paths) if ref))


def parent_with_session(store: Store, session: str, sha: str) -> str | None:
    """The commit's parent, or None when there is none or the session did not exist there yet."""
    try:
        parent = resolve_ref(store, f"{sha}^", session)
    except StatedumpError:
        return None
    return parent if session in store.session_ids(parent) else None


class HistoryView(SessionView):
    """Commits newest first; the highlighted one's record diff against its parent below."""

    DEFAULT_CSS = stylesheet(__file__)
    MAIN = "#history-table"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "open_state", "State then"),
        Binding("n", "next_dump", "Next dump"),
    ]

    @dataclass
    class OpenState(Message):
        """Ask for the state document as of a commit."""

        sha: str
        label: str

    def compose(self) -> ComposeResult:
        yield DataTable(id="history-table", cursor_type="row")
        with VerticalScroll(id="history-diff-scroll"):
            yield Static(Text("Reading the history…", style="dim"), id="history-diff")

    def on_mount(self) -> None:
        self.entries: list[Entry] = []
        self.dumps: dict[str, list[Dump]] = {}
        self._timer: Timer | None = None
        self._pending: str | None = None
        self._wanted: str | None = None
        table = self.query_one("#history-table", DataTable)
        table.add_column("Date (UTC)", width=16)
        table.add_column("Commit", width=10)
        table.add_column("Dump", width=8)
        table.add_column("Change", width=60)
        self._read_log()

    @work(thread=True, exclusive=True, group="history-log")
    def _read_log(self) -> None:
        try:
            entries = self.reader(session_log, self.session_id)
            dumps = self.reader(list_dumps, self.session_id)
        except StatedumpError as err:
            self.app.call_from_thread(self.notify, str(err), severity="error", markup=False)
            return
        self.app.call_from_thread(self._fill, entries, dumps)

    def _fill(self, entries: list[Entry], dumps: list[Dump]) -> None:
        self.entries = entries
        self.dumps = {}
        for d in dumps:
            self.dumps.setdefault(d.sha, []).append(d)
        table = self.query_one("#history-table", DataTable)
        for e in entries:
            tags = self.dumps.get(e.sha, [])
            mark = Text("◆ " + ",".join(str(d.number) for d in tags), style="bold magenta") if tags else Text("")
            table.add_row(f"{e.date:%Y-%m-%d %H:%M}", Text(e.short, style="yellow"), mark, text.line(e.subject), key=e.sha)
        if not entries:
            self.query_one("#history-diff", Static).update(Text("No commits yet.", style="dim"))
        elif self._wanted is not None:
            self.select(self._wanted)

    # -- the selected commit ---------------------------------------------------
    def current(self) -> Entry | None:
        """The commit under the cursor."""
        table = self.query_one("#history-table", DataTable)
        if not table.row_count or not (0 <= table.cursor_row < len(self.entries)):
            return None
        return self.entries[table.cursor_row]

    def select(self, sha: str) -> None:
        """Put the cursor on a commit (once the history is read, if it is not yet)."""
        self._wanted = sha
        table = self.query_one("#history-table", DataTable)
        if sha in table.rows:
            table.move_cursor(row=table.get_row_index(sha), animate=False)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        entry = self.current()
        if entry is None:
            return
        head = Text.assemble(("commit ", "dim"), (entry.sha, "yellow"), f"  {entry.date:%Y-%m-%d %H:%M} UTC")
        for d in self.dumps.get(entry.sha, []):
            head.append_text(Text.assemble("\n", (f"◆ {d.name}", "bold magenta"), "  ", text.line(d.message)))
        if entry.source:
            head.append_text(Text.assemble(("\nsource ", "dim"), text.line(entry.source)))
        self._head = head
        self.query_one("#history-diff", Static).update(head + Text("\n\nComparing with the parent commit…", style="dim"))
        if self._timer is not None:
            self._timer.stop()
        self._pending = entry.sha
        self._timer = self.set_timer(DIFF_DELAY, lambda: self._diff(entry))

    def _compare(self, store: Store, entry: Entry) -> list[RecordDiff]:
        parent = parent_with_session(store, self.session_id, entry.sha)
        ids = touched_ids(entry)
        if not ids:
            # Nothing known about what the commit touched (a merge lists no files): compare whole states.
            new = state_at(store, self.session_id, entry.sha)
            old = state_at(store, self.session_id, parent) if parent is not None else SessionState(new.session, [])
            return diff_states(old, new)
        # Records the commit did not touch are equal on both sides, so reading only the touched
        # ones gives what diff_states(state_at(parent), state_at(commit)) gives, without reading
        # every file of a 10,000-record session twice for each row the cursor rests on.
        meta = self.state.session
        new_records = [r for i in ids if (r := record_at(store, entry.sha, self.session_id, i)) is not None]
        old_records = [r for i in ids if parent is not None and (r := record_at(store, parent, self.session_id, i)) is not None]
        return diff_states(SessionState(meta, old_records), SessionState(meta, new_records))

    @work(thread=True, exclusive=True, group="history-diff")
    def _diff(self, entry: Entry) -> None:
        worker = get_current_worker()
        if worker.is_cancelled:
            return
        try:
            diffs = self.reader(self._compare, entry)
        except StatedumpError as err:
            self.app.call_from_thread(self.notify, str(err), severity="error", markup=False)
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show_diff, entry.sha, diffs)

    def _show_diff(self, sha: str, diffs: list[RecordDiff]) -> None:
        if self._pending == sha:
            self.query_one("#history-diff", Static).update(self._head + Text("\n\n") + diff_text(diffs))

    # -- actions -------------------------------------------------------------------
    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open_state()

    def action_open_state(self) -> None:
        entry = self.current()
        if entry is not None:
            names = ", ".join(d.name for d in self.dumps.get(entry.sha, []))
            self.post_message(self.OpenState(entry.sha, f"{entry.short} {names}".strip()))

    def action_next_dump(self) -> None:
        table = self.query_one("#history-table", DataTable)
        rows = [i for i, e in enumerate(self.entries) if e.sha in self.dumps]
        if rows:
            later = [i for i in rows if i > table.cursor_row]
            table.move_cursor(row=(later or rows)[0], animate=False)
