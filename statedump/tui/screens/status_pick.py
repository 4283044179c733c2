"""Picking a record's new status: the statuses of its kind, the current one marked."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from statedump.models import RecordBase
from statedump.tui import text


class StatusPick(ModalScreen[str | None]):
    """Answers the chosen status, or None on Escape."""

    DEFAULT_CSS = """
    StatusPick { align: center middle; }
    StatusPick > Vertical { width: 48; height: auto; border: round $accent; background: $panel; padding: 0 1; }
    StatusPick OptionList { height: auto; max-height: 12; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, record: RecordBase):
        super().__init__()
        self.record = record

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(text.line(f"Status of {self.record.id}"))
            yield OptionList(
                *(Option(f"{s}  (now)" if s == self.record.status else s, id=s) for s in type(self.record).STATUSES), id="status-options"
            )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = list(type(self.record).STATUSES).index(self.record.status)
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)
