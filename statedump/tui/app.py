"""The statedump terminal UI: a sessions list, then one session in six views.

`make_app` is the one way to build the app, for the `tui` command and for tests alike.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from statedump.core.store.store import Store
from statedump.tui.commands import StatedumpCommands
from statedump.tui.reader import Reader
from statedump.tui.screens.session import SessionScreen
from statedump.tui.screens.sessions import SessionsScreen


class StatedumpApp(App[None]):
    """Browse a store: pick a session, then read its state, records and history."""

    CSS_PATH = "app.tcss"
    TITLE = "statedump"
    COMMANDS: ClassVar = App.COMMANDS | {StatedumpCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "keys", "Keys"),
    ]

    def __init__(self, store: Store, session: str | None = None):
        super().__init__()
        self.reader = Reader(store)
        self.session_id = session

    def on_mount(self) -> None:
        self.push_screen(SessionsScreen(self.reader))
        if self.session_id is not None:
            self.push_screen(SessionScreen(self.reader, self.session_id))

    def action_keys(self) -> None:
        """`?`: the keys of what has the focus, and of the screen and the app, in a side panel."""
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def open_session(self, session: str) -> None:
        """Show one session over the sessions list."""
        while len(self.screen_stack) > 2:
            self.pop_screen()
        self.push_screen(SessionScreen(self.reader, session))

    def show_sessions(self) -> None:
        """Back to the sessions list."""
        while len(self.screen_stack) > 2:
            self.pop_screen()


def make_app(store: Store, session: str | None = None) -> StatedumpApp:
    """The app for `store`; with `session`, it opens on that session (checked first)."""
    if session is not None:
        session = store.pick_session(session)
    return StatedumpApp(store, session)
