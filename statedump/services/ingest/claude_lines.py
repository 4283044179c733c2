"""Which lines of a Claude Code transcript need no parse, told from their bytes.

Most of a transcript's bytes are tool rounds; parsing them all was most of an import's time.
`PassOver` decides from a line's bytes that reading it fully would change nothing in the plan
(and tells `Turns` what the line says of the agent's turn); `Calls` lets through the tool calls
actions.py reads and the results they wait for. claude_code.py is the reader that uses them.
"""

from __future__ import annotations

import re
from typing import Any

from statedump.services.ingest.plan import ImportPlan
from statedump.services.ingest.tool_output import CHECK_START
from statedump.services.ingest.transcript import Transcript
from statedump.services.ingest.turns import Turns

# Most of a transcript's bytes are tool rounds, which give a plan nothing once the session
# facts are known. These patterns recognise them from the bytes, without building the long
# strings: a run of `"name": scalar` pairs can only be the members of one object, so
# what follows it sits at a known depth. A string is `"` ... `"` with escaped characters
# inside; an unescaped `"` always ends it, so a pattern can never start inside one.
_W = rb"[ \t\r\n]*"
_STRING = rb'"[^"\\\x00-\x1f]*+(?:\\.[^"\\\x00-\x1f]*+)*+"'
_SCALAR = rb"(?:" + _STRING + rb"|true|false|null|-?[0-9][0-9.eE+-]*+)"
_PAIRS = rb"(?:" + _W + _STRING + _W + rb":" + _W + _SCALAR + _W + rb",)*?"
# (Lazy: the name sought is tried before each further member, so a long string after it is never scanned.)
_LINE = re.compile(
    rb"\{" + _PAIRS + _W + rb'"type"' + _W + rb":" + _W
    + rb'"(?:(user)"' + _W + rb",(" + _PAIRS + _W + rb'"message"' + _W + rb":" + _W + rb"\{"
    + _PAIRS + _W + rb'"content"' + _W + rb":" + _W + rb"\[" + _W + rb"\{"
    + _PAIRS + _W + rb'"type"' + _W + rb":" + _W + rb'"tool_result")?'
    + rb'|([a-z_-]*)"' + _W + rb"[,}])"
)  # fmt: skip
"""The line's own `type` (group 1 when it is "user", else group 3), when only scalar members
come before it (as Claude Code writes them); for a user line, group 2 says that its
`message.content` starts with a `tool_result` block."""
_ENVELOPE = ("id", "cwd", "branch", "started")

TOOLS = (
    "Bash", "Write", "Edit", "MultiEdit", "NotebookEdit", "WebFetch", "TodoWrite", "TaskCreate", "TaskUpdate", "Task", "Agent",
    "AskUserQuestion",
)  # fmt: skip
"""The tools whose calls become records (see actions.py); other tool rounds stay unparsed."""
ACTING = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "Task", "Agent"})
"""Calls that change something: what the agent said just before one is what it found and means to do."""
NOW = frozenset({"TodoWrite", "TaskUpdate"})
"""Calls read when they are made: their results add nothing."""
_WANTED = re.compile(rb'"name"' + _W + rb":" + _W + rb'"(?:' + b"|".join(t.encode() for t in TOOLS if t != "Bash") + rb')"')
_SHELL = re.compile(rb'"name"' + _W + rb":" + _W + rb'"Bash"')
_SERVING = re.compile(
    rb"launch_server|sglang serve|vllm serve|api_server|trtllm-serve|bench_serving|benchmark_serving|vllm bench|genai-perf|guidellm|aiperf|docker run|docker compose|docker-compose"
)
_CHECK_CALL = re.compile(rb'"command"' + _W + rb":" + _W + rb'"' + CHECK_START.encode())
"""What a shell call must name to be read: most shell calls of a session (ls, grep, git, cat)
launch no server, run no benchmark and check no code, and parsing each of them (and waiting
for its result) was most of an import's time. A failed shell call that does none of these is
not recorded. (A check is looked for only where the command starts, after `cd … &&`: anchored
on `"command"`, the search costs next to nothing; an alternation tried at every byte did not.)"""
_END_TURN = re.compile(rb'"stop_reason"' + _W + rb":" + _W + rb'"end_turn"')
_TURN_END = re.compile(rb'"subtype"' + _W + rb":" + _W + rb'"(?:stop_hook_summary|turn_duration)"')
"""System lines Claude Code 2.x writes when the agent's turn ends (its messages then carry no `end_turn`)."""
_TEXT_BLOCK = re.compile(rb'"type"' + _W + rb":" + _W + rb'"text"')
_PASSED: dict[str, Any] = {}
"""`PassOver.last` for an assistant line passed over: it called tools or only thought."""
_SIDECHAIN = re.compile(rb'"isSidechain"' + _W + rb":" + _W + rb"true")
_TOOL_ID = re.compile(rb'"tool_use_id"' + _W + rb":" + _W + rb'"([^"\\]{1,200})"')


class Calls:
    """`PassOver`, but for the tool calls actions.py reads (`TOOLS`) and their results: an
    assistant line that calls one of them is parsed, and so is the result of a call that waits."""

    def __init__(self, over: PassOver):
        self.over = over
        self.pending: dict[str, tuple[str, dict[str, Any], str]] = {}
        """tool_use id -> (tool, input, source) of a call whose result is still to come."""

    def __call__(self, buf: bytes, start: int, end: int) -> bool | bytes:
        passed = self.over(buf, start, end)
        if not passed:
            return False
        # Only an assistant line calls tools (`over.call`, None for the others): a user line
        # passed over is a tool result, and parsing one changes nothing unless its call waits.
        call = self.over.call if self.over.call is not None else -1
        if call >= 0 and (
            _WANTED.search(buf, call, end)
            or (_SHELL.search(buf, call, end) and (_SERVING.search(buf, call, end) or _CHECK_CALL.search(buf, call, end)))
        ):
            return False
        if self.pending and (found := _TOOL_ID.search(buf, start, end)) is not None:
            return passed if found.group(1).decode("utf-8", "replace") not in self.pending else False
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
        self.call: int | None = None
        """Where the assistant line being read now has its first `"tool_use"` (-1: none)."""
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

    def _worked(self, buf: bytes, start: int, end: int) -> bytes:
        # What the parse would tell `Turns` of this line. `stop_reason` sits after the content,
        # near the line's end; an unescaped `"stop_reason"` cannot be inside a string.
        assert self.turns is not None
        self.turns.did()
        self.prev, self.last, self.fresh = self.last, _PASSED, True
        if _END_TURN.search(buf, max(start, end - 2048), end) is not None and self._main(buf, start, end):
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

    def _main(self, buf: bytes, start: int, end: int) -> bool:
        # A line of the conversation itself, not of a subagent written inline.
        return self.alone or _SIDECHAIN.search(buf, start, min(end, start + 1000)) is None

    def __call__(self, buf: bytes, start: int, end: int) -> bool | bytes:
        # A token (not True) when `Turns` was told something: see jsonl.PassOver.
        self.fresh, self.call = False, None
        found = _LINE.match(buf, start, end)
        if found is None:
            return False
        if found.group(1) is not None:  # a user line: only a tool result is passed over
            if found.group(2) is None or not self.talk.idle or not self._known(False):
                return False
        else:
            kind = found.group(3)
            if kind == b"assistant":
                if not self.talk.idle or not self._known(True):
                    return False
                self.call = buf.find(b'"tool_use"', start, end)
                if self.call < 0 and _TEXT_BLOCK.search(buf, start, end) is not None:
                    return False  # it says something and calls nothing: maybe the reply that closes the turn
                if self.turns is not None:
                    return self._worked(buf, start, end)
            elif kind == b"system":
                if not self._known(False):
                    return False
                if self.turns is not None and _TURN_END.search(buf, start, end) is not None and self._main(buf, start, end):
                    self.turns.closed()
                    return b"c"
            elif kind in (b"summary", b"custom-title", b"user"):
                # (A user line whose `type` comes last, after its message, lands here: read it.)
                return False
        return True
