"""What a Claude Code transcript line's bytes say, without parsing it.

Most of a transcript's bytes are tool rounds; parsing them all was most of an import's time.
`features` tells from a line's bytes its type, whether it calls a tool the reader records,
whether it ends the agent's turn and which call it answers: the same whatever the reader
knows, so that a child process can find them for a big file while the reader goes on
(linescan.py). claude_lines.py decides on them. Only `re` and the check patterns are
imported: the child is started before the reader's modules load.
"""

from __future__ import annotations

import re

from statedump.services.ingest.checks import CHECK_START

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

TOOLS = (
    "Bash", "Write", "Edit", "MultiEdit", "NotebookEdit", "WebFetch", "TodoWrite", "TaskCreate", "TaskUpdate", "Task", "Agent",
    "AskUserQuestion",
)  # fmt: skip
"""The tools whose calls become records (see actions.py); other tool rounds stay unparsed."""
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
_SIDECHAIN = re.compile(rb'"isSidechain"' + _W + rb":" + _W + rb"true")
_TOOL_ID = re.compile(rb'"tool_use_id"' + _W + rb":" + _W + rb'"([^"\\]{1,200})"')


# What `features` tells of a line from its bytes alone: its kind (`code`) and `flags`.
UNKNOWN, TYPED, RESULT, ASSISTANT, SYSTEM, READ, OTHER = range(7)
"""Kinds: not recognised (parsed), a user line that is no tool result, a tool result, an
assistant line, a system line, a summary or title line (parsed), any other type."""
CALL, TEXT, WANTED, END_TURN, SIDECHAIN, TURN_END = 1, 2, 4, 8, 16, 32
"""Flags: it calls a tool; it has a text block (looked for only when it calls none); one of
its calls is one actions.py reads (`TOOLS`, a shell call that serves, benchmarks or checks);
it ends the agent's turn (assistant) and ... `TURN_END` for a system line; `SIDECHAIN`,
a subagent's line written inline, is looked for only in a line that ends a turn."""


def features(buf: bytes, start: int, end: int, ids: bool = True) -> tuple[int, int, bytes]:
    """(kind, flags, the tool_use id it answers or b"") of the line `buf[start:end]`: all that
    `Calls.decide` needs, found from the bytes whatever the reader knows (so they can be found
    in another process, see linescan.py). `ids`: look for the tool_use id (only needed while
    a call waits for its result)."""
    found = _LINE.match(buf, start, end)
    if found is None:
        return UNKNOWN, 0, b""
    flags = 0
    if found.group(1) is not None:
        if found.group(2) is None:
            return TYPED, 0, b""
        code = RESULT
    else:
        kind = found.group(3)
        if kind == b"assistant":
            code = ASSISTANT
            call = buf.find(b'"tool_use"', start, end)
            if call >= 0:
                flags = CALL
                if _WANTED.search(buf, call, end) or (
                    _SHELL.search(buf, call, end) and (_SERVING.search(buf, call, end) or _CHECK_CALL.search(buf, call, end))
                ):
                    flags |= WANTED
            elif _TEXT_BLOCK.search(buf, start, end) is not None:
                return ASSISTANT, TEXT, b""
            # `stop_reason` sits after the content, near the line's end; an unescaped
            # `"stop_reason"` cannot be inside a string.
            if _END_TURN.search(buf, max(start, end - 2048), end) is not None:
                flags |= END_TURN | _sidechain(buf, start, end)
        elif kind == b"system":
            code = SYSTEM
            if _TURN_END.search(buf, start, end) is not None:
                flags = TURN_END | _sidechain(buf, start, end)
        elif kind in (b"summary", b"custom-title", b"user"):
            # (A user line whose `type` comes last, after its message, lands here: read it.)
            return READ, 0, b""
        else:
            code = OTHER
    if ids and (answered := _TOOL_ID.search(buf, start, end)) is not None:
        return code, flags, answered.group(1)
    return code, flags, b""


def _sidechain(buf: bytes, start: int, end: int) -> int:
    return SIDECHAIN if _SIDECHAIN.search(buf, start, min(end, start + 1000)) is not None else 0
