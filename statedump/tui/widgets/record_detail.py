"""The detail pane of the Records view: one record's fields, its links and its history."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.syntax import Syntax
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.timer import Timer
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from statedump.core import codec
from statedump.core.errors import StatedumpError
from statedump.core.render.markup import visible
from statedump.models import RecordBase
from statedump.models.history import Entry
from statedump.models.state import SessionState
from statedump.services.history import record_log
from statedump.tui import text
from statedump.tui.reader import Reader
from statedump.tui.widgets import stylesheet

# Moving the cursor quickly through thousands of rows must not start a git log per row.
HISTORY_DELAY = 0.2


def yaml_text(record: RecordBase) -> str:
    """The record as its file holds it, without the editor schema line."""
    lines = codec.dump_record(record).split("\n")
    return visible("\n".join(lines[1:] if lines and lines[0].startswith("# yaml-language-server") else lines)).rstrip("\n")


def history_text(entries: list[Entry]) -> Text:
    """One line per commit, newest first: date, sha, action, source."""
    if not entries:
        return Text("Not committed yet.", style="dim")
    rows = []
    for e in entries:
        row = Text.assemble((f"{e.date:%Y-%m-%d %H:%M}", "cyan"), " ", (e.short, "yellow"), " ", text.line(e.action or e.subject, "bold"))
        if e.source:
            row.append(" · ")
            row.append_text(text.line(e.source, "dim"))
        rows.append(row)
    return Text("\n").join(rows)


class RecordDetail(VerticalScroll):
    """Fields (as YAML), typed links both ways (Enter follows one) and the commits that touched it."""

    DEFAULT_CSS = stylesheet(__file__)
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "leave", "Back to table")]

    @dataclass
    class LinkFollowed(Message):
        """The user chose a link: show the record it points to."""

        record_id: str

    @dataclass
    class Left(Message):
        """The user is done with the detail pane."""

    def __init__(self, reader: Reader, session: str, state: SessionState, *, id: str | None = None):
        super().__init__(id=id)
        self.reader = reader
        self.session_id = session
        self.state = state
        self.record: RecordBase | None = None
        self._targets: list[str] = []
        self._timer: Timer | None = None
        self._incoming: dict[str, list[tuple[str, RecordBase]]] | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="detail-head")
        yield Static("Links", classes="detail-label", id="detail-links-label")
        yield OptionList(id="detail-links")
        yield Static("History", classes="detail-label")
        yield Static(id="detail-history")
        yield Static("Fields", classes="detail-label")
        yield Static(id="detail-yaml")

    def use_state(self, state: SessionState) -> None:
        """Read links and back-links from `state` from now on (the store changed underneath)."""
        self.state = state
        self._incoming = None
        if self.record is not None:
            self.show(state.get(self.record.id))

    def show(self, record: RecordBase | None) -> None:
        """Show `record` (None: nothing selected)."""
        self.record = record
        self.scroll_home(animate=False)
        head = self.query_one("#detail-head", Static)
        links = self.query_one("#detail-links", OptionList)
        history = self.query_one("#detail-history", Static)
        links.clear_options()
        self._targets = []
        if record is None:
            head.update(Text("No record selected.", style="dim"))
            self.query_one("#detail-yaml", Static).update("")
            history.update("")
            return
        head.update(
            text.joined(
                [
                    text.plain(record.title, "bold"),
                    Text.assemble((record.kind, "italic"), " · ", text.status(record.status), " · ", record.id),
                ]
            )
        )
        self.query_one("#detail-yaml", Static).update(Syntax(yaml_text(record), "yaml", theme="ansi_dark", word_wrap=True))
        options = []
        for rel, target in record.link_pairs():
            found = self.state.get(target)
            label = text.line(found.title, "dim") if found else Text("(no such record)", style="red")
            options.append(Text.assemble((f"{rel} → ", "cyan"), (target, "bold"), "  ", label))
            self._targets.append(target)
        for rel, source in self.linking_to(record.id):
            options.append(Text.assemble((f"← {rel} of ", "magenta"), (source.id, "bold"), "  ", text.line(source.title, "dim")))
            self._targets.append(source.id)
        links.add_options([Option(prompt, id=f"link-{i}") for i, prompt in enumerate(options)])
        links.display = bool(options)
        self.query_one("#detail-links-label").display = bool(options)
        history.update(Text("Loading history…", style="dim"))
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(HISTORY_DELAY, lambda: self._load_history(record.id))

    def linking_to(self, record_id: str) -> list[tuple[str, RecordBase]]:
        """`SessionState.linking_to`, answered from an index built once: asking the state
        walks every record, too slow for each move of the cursor through 10,000."""
        if self._incoming is None:
            self._incoming = {}
            for r in self.state.records:
                for rel, target in r.link_pairs():
                    self._incoming.setdefault(target, []).append((rel, r))
        return self._incoming.get(record_id, [])

    @work(thread=True, exclusive=True, group="record-history")
    def _load_history(self, record_id: str) -> None:
        worker = get_current_worker()
        try:
            entries = self.reader(record_log, self.session_id, record_id)
        except StatedumpError as err:
            self.app.call_from_thread(self.notify, str(err), severity="error", markup=False)
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show_history, record_id, entries)

    def _show_history(self, record_id: str, entries: list[Entry]) -> None:
        if self.record is not None and self.record.id == record_id:
            self.query_one("#detail-history", Static).update(history_text(entries))

    def focus_links(self) -> None:
        """Put the keyboard on the links list (when there are links)."""
        links = self.query_one("#detail-links", OptionList)
        if links.option_count:
            links.focus()
            links.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.LinkFollowed(self._targets[event.option_index]))

    def action_leave(self) -> None:
        self.post_message(self.Left())
