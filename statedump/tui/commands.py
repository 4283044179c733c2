"""statedump's actions in the command palette (Ctrl+P): views, decisions, dumps, records, sessions."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from statedump.core.render.markup import visible
from statedump.models import Decision
from statedump.services.refs import Dump, list_dumps
from statedump.tui.screens.session import VIEWS, SessionScreen
from statedump.tui.screens.sessions import SessionsScreen
from statedump.tui.screens.state_at import StateAtScreen
from statedump.tui.widgets.decisions_view import DecisionsView
from statedump.tui.widgets.history_view import HistoryView

if TYPE_CHECKING:
    from statedump.tui.app import StatedumpApp

Action = Callable[[], object]
# Record ids are offered only once the query is this long: a session may hold 10,000.
RECORD_QUERY_MIN = 2
RECORD_HITS_MAX = 30


def _label(value: str, limit: int = 72) -> str:
    """Record text for a palette line: one line, control characters visible, long text cut."""
    flat = " ".join(visible(value).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class StatedumpCommands(Provider):
    """Commands for the screen the palette was opened from."""

    async def startup(self) -> None:
        self.dumps: list[Dump] = []
        screen = self.screen
        if isinstance(screen, SessionScreen):
            self.dumps = await asyncio.to_thread(screen.reader, list_dumps, screen.session_id)

    def _commands(self) -> list[tuple[str, Action, str]]:
        """(text, action, help) of every command on offer."""
        screen = self.screen
        out: list[tuple[str, Action, str]] = []
        if isinstance(screen, SessionsScreen):
            app = cast("StatedumpApp", screen.app)
            for sid in screen.store.session_ids():
                out.append((f"Open session {sid}", partial(app.open_session, sid), "Browse this session"))
            return out
        if not isinstance(screen, SessionScreen):
            return out
        for tab, (label, _) in VIEWS.items():
            out.append((f"Show {label.lower()}", partial(screen.show, tab), f"Switch to the {label} view"))
        out.append(("Search records", screen.action_search, "Filter the records by text"))
        out.append(("Back to sessions", screen.action_back, "The sessions list"))
        state = screen.state
        if state is not None:
            for d in state.of_kind(Decision):
                out.append((f"Show decision {_label(d.title)} ({d.id})", partial(self._decision, screen, d.id), "Its whole why chain"))
        for dump in self.dumps:
            what = _label(dump.message)
            out.append((f"Open history at dump {dump.number}: {what}", partial(self._history_at, screen, dump.sha), dump.name))
            out.append((f"Open state at dump {dump.number}: {what}", partial(self._state_at, screen, dump), dump.name))
        return out

    @staticmethod
    async def _decision(screen: SessionScreen, decision_id: str) -> None:
        view = await screen.show("decisions")
        if isinstance(view, DecisionsView):
            view.select(decision_id)

    @staticmethod
    async def _history_at(screen: SessionScreen, sha: str) -> None:
        view = await screen.show("history")
        if isinstance(view, HistoryView):
            view.select(sha)

    @staticmethod
    def _state_at(screen: SessionScreen, dump: Dump) -> None:
        screen.app.push_screen(StateAtScreen(screen.reader, screen.session_id, dump.sha, dump.name))

    async def discover(self) -> Hits:
        for command, action, help_text in self._commands():
            yield DiscoveryHit(Content(command), action, command, help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command, action, help_text in self._commands():
            score = matcher.match(command)
            if score > 0:
                yield Hit(score, Content(command), action, command, help_text)
        screen = self.screen
        if isinstance(screen, SessionScreen) and screen.state is not None and len(query.strip()) >= RECORD_QUERY_MIN:
            needle = query.strip().lower()
            found = 0
            for r in screen.state.records:
                if needle in r.id:
                    command = f"Show record {r.id}: {_label(r.title)}"
                    yield Hit(matcher.match(command) or 0.1, Content(command), partial(screen.open_record, r.id), command, r.kind)
                    found += 1
                    if found >= RECORD_HITS_MAX:
                        break
