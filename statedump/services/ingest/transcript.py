"""What every transcript importer shares: the user's messages become instructions, and
state dumps become Markdown imports and checkpoints.

A checkpoint is either a compaction summary the agent tool wrote, or an empty user message
followed by an assistant message that is a state dump (SCENARIO.md: the empty turn is
what prompts the dump).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from statedump.core.clock import now
from statedump.models import Instruction
from statedump.services.ingest.plan import CheckpointMark, ImportPlan, one_line, stable_id
from statedump.services.ingest.sections import clean, mode_of
from statedump.services.ingest.statedump_doc import looks_like_statedump, read_statedump
from statedump.services.ingest.summary import read_summary

_SECTION_LINE = re.compile(r"^(?:#{1,4}\s+(.+?)|\*\*(.+?)\*\*:?|\d+\.\s+(.+?):|([A-Z][A-Za-z ,/&']{2,60}):)\s*$", re.M)


def when(value: object) -> datetime | None:
    """An ISO 8601 text or epoch milliseconds as an aware time, or None."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value / 1000, UTC)
        except (OverflowError, ValueError, OSError):
            return None
    if isinstance(value, str) and value:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


def looks_like_dump(text: str) -> bool:
    """True when a message reads as a state dump: two or more known section names."""
    names = {next(g for g in m.groups() if g) for m in _SECTION_LINE.finditer(text)}
    return len({mode_of(n) for n in names} - {None}) >= 2


class Transcript:
    """Collects a transcript's events, in order, into a plan."""

    def __init__(self, plan: ImportPlan, label: str):
        self.plan = plan
        self.label = label
        self._empty: tuple[str, datetime | None] | None = None
        self._reply: list[str] = []
        self._reply_key: str | None = None
        self._reply_at: datetime | None = None
        self._typed: set[str] = set()
        self._quoted: dict[str, str] = {}

    @property
    def idle(self) -> bool:
        """No empty user turn is open: assistant text now is not collected."""
        return self._empty is None

    def user(self, text: str, key: str, at: datetime | None) -> None:
        """A message the person typed. An empty one may open a checkpoint."""
        self._close_reply()
        if not text.strip():
            self._empty = (key, at)
            return
        self._empty = None
        said = " ".join(text.split())
        self._typed.add(said)
        if said in self._quoted:
            # An earlier summary quoted these words; the message itself, with its uuid, replaces it.
            self.plan.remove({self._quoted.pop(said)})
        self.plan.add(
            Instruction(
                id=stable_id("msg", one_line(text, 40), key=key),
                title=one_line(text, 120),
                quote=text.strip(),
                at=at,
                source=key,
            )
        )

    def assistant(self, text: str, key: str, at: datetime | None) -> None:
        """Assistant text; after an empty user message it is collected until the next user turn."""
        if self._empty is None or not text.strip():
            return
        if self._reply_key is None:
            self._reply_key, self._reply_at = key, at
        self._reply.append(text)

    def summary(self, text: str, key: str, at: datetime | None, what: str) -> None:
        """A compaction or handoff summary: its content is imported and it is a checkpoint."""
        self._close_reply()
        self._empty = None
        if text.strip():
            self._dump(text, key, at, what)

    def finish(self) -> None:
        """Call at the end of the transcript."""
        self._close_reply()

    def _close_reply(self) -> None:
        if self._reply_key is not None:
            text = "\n\n".join(self._reply)
            if looks_like_dump(text) or looks_like_statedump(text):
                self._dump(text, self._reply_key, self._reply_at, "state dump after an empty user message")
            self._empty = None
        self._reply, self._reply_key, self._reply_at = [], None, None

    def _dump(self, text: str, key: str, at: datetime | None, what: str) -> None:
        source = f"{self.label} {key}"
        body = clean(text)
        known = {r.id for r in self.plan.records}
        if looks_like_statedump(body):
            read_statedump(body, self.plan, at or now())
        else:
            read_summary(body, self.plan, source=source, base=at or now())
        # A summary quotes the person's messages again ("All user messages"): those already
        # imported from the transcript itself, with their uuid and time, are not doubled.
        again = {
            r.id
            for r in self.plan.records
            if isinstance(r, Instruction) and r.id not in known and " ".join(r.quote.split()).strip('"“”') in self._typed
        }
        self.plan.remove(again)
        for r in self.plan.records:
            if isinstance(r, Instruction) and r.id not in known:
                self._quoted[" ".join(r.quote.split()).strip('"“”')] = r.id
        self.plan.checkpoints.append(CheckpointMark(at=at, source=source, message=what, records=tuple(self.plan.records)))
