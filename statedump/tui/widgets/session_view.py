"""What every view of a session shares: the store, the session, its loaded state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.message import Message
from textual.widget import Widget

from statedump.models.state import SessionState
from statedump.tui.reader import Reader


class SessionView(Widget):
    """One tab of the session screen. Built the first time its tab is shown."""

    MAIN: ClassVar[str] = ""
    """Selector of the widget that gets the keyboard when the view is shown."""

    @dataclass
    class OpenRecord(Message):
        """Ask the session screen to show a record in the Records view."""

        record_id: str

    def __init__(self, reader: Reader, session: str, state: SessionState, *, id: str | None = None):
        super().__init__(id=id)
        self.reader = reader
        self.session_id = session
        self.state = state

    def focus_main(self) -> None:
        """Give the keyboard to the view's main widget."""
        if self.MAIN:
            self.query_one(self.MAIN).focus()
