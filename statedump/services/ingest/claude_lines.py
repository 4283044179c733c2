"""Which lines of a Claude Code transcript need no parse, told from their bytes.

Most of a transcript's bytes are tool rounds; parsing them all was most of an import's time.
`PassOver` decides from what a line's bytes say (claude_bytes.py) that reading it fully would change nothing in the plan
(and tells `Turns` what the line says of the agent's turn); `Calls` lets through the tool calls
actions.py reads and the results they wait for. claude_code.py is the reader that uses them.
"""

from __future__ import annotations

from typing import Any

from statedump.services.ingest.claude_bytes import (
    ASSISTANT,
    END_TURN,
    READ,
    RESULT,
    SIDECHAIN,
    SYSTEM,
    TEXT,
    TURN_END,
    TYPED,
    UNKNOWN,
    WANTED,
    features,
)
from statedump.services.ingest.plan import ImportPlan
from statedump.services.ingest.transcript import Transcript
from statedump.services.ingest.turns import Turns

_ENVELOPE = ("id", "cwd", "branch", "started")

ACTING = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "Task", "Agent"})
"""Calls that change something: what the agent said just before one is what it found and means to do."""
NOW = frozenset({"TodoWrite", "TaskUpdate"})
"""Calls read when they are made: their results add nothing."""
_PASSED: dict[str, Any] = {}
"""`PassOver.last` for an assistant line passed over: it called tools or only thought."""


class Calls:
    """`PassOver`, but for the tool calls actions.py reads (`TOOLS`) and their results: an
    assistant line that calls one of them is parsed, and so is the result of a call that waits."""

    features = staticmethod(features)
    """Found in a child process for a big file (see jsonl.iter_jsonl): the same for every reader."""

    def __init__(self, over: PassOver):
        self.over = over
        self.pending: dict[str, tuple[str, dict[str, Any], str]] = {}
        """tool_use id -> (tool, input, source) of a call whose result is still to come."""

    def __call__(self, buf: bytes, start: int, end: int) -> bool | bytes:
        return self.decide(*features(buf, start, end, bool(self.pending)))

    def decide(self, code: int, flags: int, answers: bytes) -> bool | bytes:
        """What `__call__` answers for a line of these `features`."""
        passed = self.over.decide(code, flags)
        if not passed or flags & WANTED:
            return False
        # Parsing a tool result passed over changes nothing unless its call waits.
        if self.pending and answers and answers.decode("utf-8", "replace") in self.pending:
            return False
        return passed

    def replay(self, token: bytes) -> None:
        """See `PassOver.replay`."""
        self.over.replay(token)


class PassOver:
    """Decides, from a line's bytes, that reading it fully would change nothing in the plan.

    Only once every session fact a line's envelope gives is known (each is first-wins), and
    only while no empty user turn is open (when the next assistant text may be a state dump):
    then an assistant or `turn_duration` line adds nothing, and neither does a user line whose
    content holds a `tool_result` block (`_user_text` gives None for it; as a compaction summary
    it would be an empty one, which changes nothing either). Lines of other types are never
    read. Summary and title lines, and anything the patterns do not recognise, are parsed.
    Exact for JSON lines whose objects have unique member names (RFC 8259 leaves duplicates
    undefined; Claude Code writes none); `iter_jsonl` still parses a line that looks damaged,
    and reports it as before.
    """

    def __init__(self, plan: ImportPlan, talk: Transcript, turns: Turns | None = None):
        self.plan = plan
        self.talk = talk
        self.turns = turns
        """Told of the assistant lines passed over: the agent worked, and maybe ended its turn."""
        self.alone = False
        """A subagent's own file: its sidechain lines are its conversation."""
        self.last: dict[str, Any] | None = None
        """The last assistant line, when it was parsed (`_PASSED` when it only called tools or
        thought, and was passed over): the reply that may close a turn."""
        self.prev: dict[str, Any] | None = None
        """The assistant line before it: what the agent said before the call it is making now."""
        self.fresh = False
        """`last` is the line being read now (this reader saw it before the parse)."""
        self.version: object = None
        self._envelope = False
        self._model = False

    def _known(self, assistant: bool) -> bool:
        # Facts are only ever added, so once known they stay known.
        if not self._envelope:
            self._envelope = bool(self.version) and all(k in self.plan.session for k in _ENVELOPE)
        if assistant and not self._model:
            self._model = "model_used" in self.plan.session
        return self._envelope and (self._model or not assistant)

    def _worked(self, flags: int) -> bytes:
        # What the parse would tell `Turns` of this line.
        assert self.turns is not None
        self.turns.did()
        self.prev, self.last, self.fresh = self.last, _PASSED, True
        if flags & END_TURN and self._main(flags):
            self.turns.closed()
            return b"wc"
        return b"w"

    def replay(self, token: bytes) -> None:
        """Tell `Turns` again what a line passed over told it (`token`: what `__call__` gave for
        it, w: worked, c: closed its turn), when an incremental import replays what it read before."""
        assert self.turns is not None
        for mark in token:
            if mark == ord("w"):
                self.turns.did()
                self.prev, self.last = self.last, _PASSED
            elif mark == ord("c"):
                self.turns.closed()

    def _main(self, flags: int) -> bool:
        # A line of the conversation itself, not of a subagent written inline.
        return self.alone or not flags & SIDECHAIN

    def __call__(self, buf: bytes, start: int, end: int) -> bool | bytes:
        return self.decide(*features(buf, start, end, ids=False)[:2])

    def decide(self, code: int, flags: int) -> bool | bytes:
        """What `__call__` answers for a line of these `features`: a token (not True) when
        `Turns` was told something, see jsonl.PassOver."""
        self.fresh = False
        if code in (UNKNOWN, TYPED, READ):
            return False
        if code == RESULT:  # a user line: only a tool result is passed over
            return self.talk.idle and self._known(False)
        if code == ASSISTANT:
            if not self.talk.idle or not self._known(True):
                return False
            if flags & TEXT:
                return False  # it says something and calls nothing: maybe the reply that closes the turn
            return self._worked(flags) if self.turns is not None else True
        if code == SYSTEM:
            if not self._known(False):
                return False
            if self.turns is not None and flags & TURN_END and self._main(flags):
                self.turns.closed()
                return b"c"
        return True
