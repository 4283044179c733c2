"""What became of the person's requests in a Codex or opencode transcript.

A request the agent worked on (tool calls or replies after it) and the person then moved on
from (a later request), or that the agent closed (a finished turn), is `done`; one that still
binds the work (it says what never or always to do) stays `active`, and so does the last
request while nothing closed it. The session's first request is also its goal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from statedump.models import Goal, Instruction
from statedump.services.ingest.plan import ImportPlan, one_line

_STANDING = re.compile(r"\b(?:do not|don't|dont|never|always|must not|mustn't|avoid)\b", re.I)


@dataclass
class _Turn:
    ids: set[str]
    work: int
    closed: bool = False


@dataclass
class Turns:
    """Counts the agent's work between the person's requests; `settle` at the end."""

    plan: ImportPlan
    label: str
    work: int = 0
    _turns: list[_Turn] = field(default_factory=list)

    def before(self) -> set[str]:
        return {r.id for r in self.plan.records}

    def request(self, known: set[str]) -> None:
        """After a request was read: the instructions it added (ids not in `known`)."""
        ids = {r.id for r in self.plan.records if isinstance(r, Instruction) and r.id not in known}
        if ids:
            self._turns.append(_Turn(ids, self.work))

    def did(self) -> None:
        """The agent did something (a tool call, a reply)."""
        self.work += 1

    def closed(self) -> None:
        """The agent finished its turn (opencode `finish: stop`, Codex `task_complete`)."""
        if self._turns and self.work > self._turns[-1].work:
            self._turns[-1].closed = True

    def settle(self) -> None:
        turns = self._turns
        done: set[str] = set()
        for n, turn in enumerate(turns):
            nxt = turns[n + 1].work if n + 1 < len(turns) else self.work
            if nxt > turn.work and (n + 1 < len(turns) or turn.closed):
                done |= turn.ids
        for record in list(self.plan.records):
            if isinstance(record, Instruction) and record.id in done and not _STANDING.search(record.quote):
                self.plan.add(record.model_copy(update={"status": "done"}))
        first = next((r for r in self.plan.records if turns and isinstance(r, Instruction) and r.id in turns[0].ids), None)
        if first is not None and len(first.quote) >= 20:
            self.plan.add(
                Goal(
                    id=self.plan.readable_id("goal", one_line(first.quote, 40), key=f"goal:{first.id}"),
                    title=one_line(first.quote, 200),
                    body=first.quote if len(first.quote) > 200 or "\n" in first.quote.strip() else None,
                    source=first.source,
                    at=first.at,
                    tags=[self.label],
                )
            )
