"""What became of the person's requests in a transcript (Claude Code, Codex, opencode).

A request the agent worked on (tool calls or replies after it) and the person then moved on
from (a later request), or that the agent closed (a finished turn), is `done`; the last request
stays `active` while nothing closed it, and one already `superseded` (a rewound branch) stays
so. A message that is only a rule ("never push to main") binds the rest of the session: it is
`standing` and stays `active`. A request that also lays down a rule ("… To be clear: don't use
ClMail, use the builtin teams.") is done like any other, and its rule sentence is kept beside
it as a standing instruction of its own.

The session's first request is also its goal (unless a summary or dump named one):
`achieved` when every request was carried out
and the agent's plan has no open item left, else `active` (a session cut off mid-work).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from statedump.models import Goal, Instruction, Task
from statedump.services.ingest.plan import ImportPlan, one_line, stable_id

_RULE = re.compile(
    r"^[\W_]*(?:(?:to be clear|also|and|but|please|remember|note|important|just)\b[\W_]*)*"
    r"(?:you\s+|we\s+)?(?:do not|don't|dont|never|always|must not|mustn't|should not|shouldn't|avoid)\b",
    re.I,
)
"""A sentence that lays down a rule: it starts with "don't", "never", "always" (after "To be clear:")."""
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_BULLET = re.compile(r"^(?:[-*+•]|\d{1,3}[.)])\s+")


def rule_sentences(text: str) -> list[str]:
    """The sentences of a message that lay down a rule, as written."""
    return [_BULLET.sub("", s.strip()) for s in _SENTENCE.split(text) if s.strip() and _RULE.match(s.strip())]


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

    def before(self) -> tuple[int, str | None]:
        """Where the plan stands before a request is read (pass it to `request`)."""
        records = self.plan.records
        return (len(records), records[-1].id if records else None)

    def request(self, known: tuple[int, str | None], *, rules: bool = True) -> None:
        """After a request was read: the instructions it added (the records after `known`). With
        `rules`, a rule the person laid down in it is kept as a standing instruction too (not
        for a prompt the person did not write, such as a slash command's expansion)."""
        count, last = known
        records = self.plan.records
        if count <= len(records) and (count == 0 or records[count - 1].id == last):
            fresh = records[count:]  # (records are only appended, or replaced in place, while a message is read)
        else:  # a record was taken out meanwhile (a summary's quote of this very message): the message's own
            fresh = [r for r in records if r.source == records[-1].source] if records else []
        added = [r for r in fresh if isinstance(r, Instruction)]
        if not added:
            return
        ids = set()
        for record in added:
            found = rule_sentences(record.quote) if rules else []
            if found and len(found) == sum(1 for s in _SENTENCE.split(record.quote) if s.strip()):
                self.plan.add(record.model_copy(update={"standing": True}))  # the whole message is a rule
                continue
            ids.add(record.id)
            for n, sentence in enumerate(found):
                self.plan.add(
                    Instruction(
                        id=stable_id("msg", sentence, key=f"{record.id}:rule:{n}"),
                        title=one_line(sentence, 120),
                        quote=sentence,
                        standing=True,
                        at=record.at,
                        source=record.source,
                        tags=[*record.tags, "rule"],
                    )
                )
        self._turns.append(_Turn(ids, self.work))

    def did(self) -> None:
        """The agent did something (a tool call, a reply)."""
        self.work += 1

    def closed(self) -> None:
        """The agent finished its turn (Claude Code `end_turn`, opencode `finish: stop`, Codex `task_complete`)."""
        if self._turns and self.work > self._turns[-1].work:
            self._turns[-1].closed = True

    def resumed(self) -> None:
        """The person said go on ("yes", "continue"): the last request is under way again
        until the agent closes its turn once more."""
        if self._turns:
            self._turns[-1].closed = False

    def settle(self) -> None:
        turns = self._turns
        done: set[str] = set()
        for n, turn in enumerate(turns):
            nxt = turns[n + 1].work if n + 1 < len(turns) else self.work
            if nxt > turn.work and (n + 1 < len(turns) or turn.closed):
                done |= turn.ids
        for record in list(self.plan.records):
            if isinstance(record, Instruction) and record.id in done and record.status == "active":
                self.plan.add(record.model_copy(update={"status": "done"}))
        asked = {i for t in turns for i in t.ids}
        first = next((r for r in self.plan.records if turns and isinstance(r, Instruction) and r.id in turns[0].ids), None)
        if first is None or len(first.quote) < 20 or any(isinstance(r, Goal) for r in self.plan.records):
            return  # (a summary or dump that names the goal says it better than the first request)
        carried = first.status == "done" and not any(
            isinstance(r, Instruction) and r.id in asked and r.status == "active" for r in self.plan.records
        )
        open_work = any(isinstance(r, Task) and r.status in ("todo", "in-progress") for r in self.plan.records)
        self.plan.add(
            Goal(
                id=self.plan.readable_id("goal", one_line(first.quote, 40), key=f"goal:{first.id}"),
                title=one_line(first.quote, 200),
                status="achieved" if carried and not open_work else "active",
                body=first.quote if len(first.quote) > 200 or "\n" in first.quote.strip() else None,
                source=first.source,
                at=first.at,
                tags=[self.label],
            )
        )
