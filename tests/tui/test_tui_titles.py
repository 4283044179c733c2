"""An imported session title holding terminal sequences (OSC 0 sets the window title) or bidi
overrides is shown as text in the TUI: the screen's title and header, never raw."""

from __future__ import annotations

from test_tui import drive, session_screen, settle, shown
from textual.pilot import Pilot

from statedump.core.store.store import Store
from statedump.models import Session
from statedump.tui.app import make_app

TITLE = "deploy \x1b]0;pwned-window\x07 then \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ and \u202eexe.gnp \x9b31m"


def test_an_imported_title_never_reaches_the_terminal_raw(store: Store) -> None:
    store.create_session(Session(id="s2", title=TITLE))
    app = make_app(store, "s2")

    async def scenario(pilot: Pilot[None]) -> None:
        await settle(pilot)
        screen = session_screen(app)
        for text in (screen.title or "", screen.sub_title or "", app.title, shown(app)):
            assert not any(ch in text for ch in "\x1b\x07\x9b\u202e"), repr(text)
        assert "\u241b]0;pwned-window\u2407" in (screen.title or "")  # shown as text

    drive(app, scenario)
