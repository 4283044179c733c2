"""Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, or `.jsonl.zst` once
Codex has compressed a rollout idle for a week), streamed.

Three eras are read: bare lines (before the envelope; the first line holds the session
id, the rest are response items), the `{timestamp, type, payload}` envelope, and its
later meta keys. What the person typed comes from `event_msg/user_message`, or from a user
`response_item` message that has no such twin (in the bare era, from user messages that
are not harness context); acknowledgements ("thanks", "ok") are no instruction. `compacted`
summaries (the `message`, or since mid-2026 the `replacement_history`) are imported as
Markdown and become checkpoints; an encrypted compaction is a checkpoint without text; so
is an empty user message followed by a state dump. Tool calls go to `codex_tools`. Line
types this reader does not know (`world_state`, `rollout_reference`, `inter_agent_*`, …)
are counted in the report and passed over.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

from statedump.core.errors import StatedumpError
from statedump.services.ingest.chatter import is_chatter
from statedump.services.ingest.codex_tools import CodexTools
from statedump.services.ingest.jsonl import Progress, iter_jsonl
from statedump.services.ingest.plan import CheckpointMark, ImportPlan, short_hash
from statedump.services.ingest.reports import report
from statedump.services.ingest.transcript import Transcript, when
from statedump.services.ingest.turns import Turns
from statedump.services.ingest.zst import decompressed, is_zstd

_INJECTED = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<user_shell_command>",
    "<context_window>",
    "<turn_aborted>",
    "<subagent_notification>",
)
_REQUEST_MARKER = "## My request for Codex:"
_SUMMARY_PREFIX = "Another language model started to solve this problem and produced a summary of its thinking process."
_SUMMARY_LEAD = "use the information in this summary to assist with your own analysis:"
_KNOWN = frozenset({"session_meta", "turn_context", "event_msg", "response_item", "compacted"})
_WHAT = "Codex rollout (JSONL)"


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict) and "text" in c)
    return ""


def _typed(text: str) -> str | None:
    """The human part of a user message, or None for injected context."""
    if _REQUEST_MARKER in text:
        return text.split(_REQUEST_MARKER, 1)[1].strip()
    return None if text.lstrip().startswith(_INJECTED) else text


def _said(text: str) -> str:
    return " ".join(text.split())


def _meta(plan: ImportPlan, payload: dict[str, Any]) -> None:
    sid = payload.get("id") or payload.get("session_id")
    if isinstance(sid, str):
        plan.fact("id", f"codex-{sid[-8:].lower()}")
    plan.fact("cwd", payload.get("cwd"))
    plan.fact("started", when(payload.get("timestamp")))
    git = payload.get("git") if isinstance(payload.get("git"), dict) else {}
    assert isinstance(git, dict)
    plan.fact("branch", git.get("branch"))
    plan.fact("repo", git.get("repository_url"))
    version = payload.get("cli_version")
    origin = payload.get("originator")
    if version or origin:
        plan.fact("agent", " ".join(str(x) for x in ("Codex CLI", version, f"({origin})" if origin else None) if x))


def summary_text(payload: dict[str, Any]) -> str:
    """The summary of a `compacted` line: its `message`, else the last readable message of its
    `replacement_history` that is not harness context (Codex's hand-off prefix taken off)."""
    message = payload.get("message")
    if isinstance(message, str) and message.strip():
        return message
    history = payload.get("replacement_history")
    if not isinstance(history, list):
        return ""
    for item in reversed(history):
        if not isinstance(item, dict) or item.get("type", "message") != "message" or item.get("role") in ("developer", "system"):
            continue
        text = _texts(item.get("content")).strip()
        if not text or text.startswith(_INJECTED) or text.startswith("<"):
            continue
        if text.startswith(_SUMMARY_PREFIX):
            text = text.split(_SUMMARY_LEAD, 1)[-1].strip() if _SUMMARY_LEAD in text else text[len(_SUMMARY_PREFIX) :].strip()
        return text
    return ""


class _Reader:
    """One rollout, line by line."""

    def __init__(self, plan: ImportPlan):
        self.plan = plan
        self.talk = Transcript(plan, "codex")
        self.tools = CodexTools(plan)
        self.turns = Turns(plan, "codex")
        self.model: object = None
        self.enveloped = False
        self.passed: Counter[str] = Counter()
        # A user message can come as a response item and as an event_msg twin: kept once, as the event.
        self._pending: list[tuple[str, str, datetime | None]] = []
        self._events: Counter[str] = Counter()
        self._items: Counter[str] = Counter()
        self._reply: tuple[str, str, datetime | None] | None = None
        self._reported: set[str] = set()

    def replied(self, text: str, source: str, at: datetime | None) -> None:
        """The agent said something; it closes its turn if no tool call follows."""
        self._reply = (text, source, at) if text.strip() else self._reply

    def closing(self) -> None:
        """The reply that closed the agent's turn (before the person's next message, at
        `task_complete`, or at the end): a report."""
        if self._reply is not None and self._reply[0].strip() not in self._reported:
            self._reported.add(self._reply[0].strip())
            report(self.plan, *self._reply, tags=["codex"])
        self._reply = None

    def user(self, text: str, source: str, at: datetime | None) -> None:
        self.closing()
        if is_chatter(text):
            self.talk.summary("", source, at, "")  # a turn of the person's, but nothing to do
            self.turns.resumed()
            return
        known = self.turns.before()
        self.talk.user(text, source, at)
        self.turns.request(known)
        if text.strip():
            self.tools.user_text(text, source, at)

    def item_user(self, text: str, source: str, at: datetime | None) -> None:
        said = _said(text)
        self._items[said] += 1
        if self._items[said] <= self._events[said]:
            return  # the event_msg came first
        self._pending.append((text, source, at))

    def event_user(self, text: str, source: str, at: datetime | None) -> None:
        said = _said(text)
        self._events[said] += 1
        twin = next((i for i, p in enumerate(self._pending) if _said(p[0]) == said), None)
        if twin is not None:
            for held in self._pending[:twin]:
                self.user(*held)
            del self._pending[: twin + 1]
        elif self._events[said] <= self._items[said]:
            return  # its response item was already kept
        self.user(text, source, at)

    def flush(self) -> None:
        held, self._pending = self._pending, []
        for item in held:
            self.user(*item)

    def compacted(self, payload: dict[str, Any], key: str, at: datetime | None) -> None:
        self.flush()
        text = summary_text(payload)
        if text.strip():
            self.talk.summary(text, key, at, "compaction summary")
        else:
            self.encrypted(key, at)

    def encrypted(self, key: str, at: datetime | None) -> None:
        """A compaction whose summary is not readable here: a checkpoint without text."""
        self.talk.summary("", key, at, "")
        self.plan.checkpoints.append(
            CheckpointMark(at=at, source=f"codex {key}", message="compaction (summary encrypted)", records=tuple(self.plan.records))
        )

    def envelope(self, kind: str, payload: dict[str, Any], line: dict[str, Any], key: str, at: datetime | None) -> None:
        ptype = payload.get("type")
        stamp = f"codex {line.get('timestamp') or key}"
        if kind == "session_meta":
            _meta(self.plan, payload)
        elif kind == "turn_context":
            self.flush()
            self.model = self.model or payload.get("model")
            self.plan.fact("cwd", payload.get("cwd"))
        elif kind == "event_msg":
            if ptype == "user_message":
                self.event_user(str(payload.get("message") or ""), stamp, at)
            elif ptype == "agent_message":
                self.turns.did()
                self.talk.assistant(str(payload.get("message") or ""), key, at)
                self.replied(str(payload.get("message") or ""), stamp, at)
            elif ptype == "task_complete":
                self.turns.closed()
                self.closing()
        elif kind == "compacted":
            self.compacted(payload, key, at)
        elif kind == "response_item":
            self.response_item(payload, stamp, key, at, enveloped=True)
        else:
            self.passed[kind] += 1

    def response_item(self, item: dict[str, Any], stamp: str, key: str, at: datetime | None, *, enveloped: bool) -> None:
        kind = item.get("type")
        if kind == "message" and item.get("role") == "user":
            text = _typed(_texts(item.get("content")))
            if text is None:
                return
            if enveloped:
                self.item_user(text, stamp, at)
            else:
                self.user(text, stamp, at)
            return
        self.flush()
        if kind == "message" and item.get("role") == "assistant":
            self.turns.did()
            self.talk.assistant(_texts(item.get("content")), key, at)
            self.replied(_texts(item.get("content")), stamp, at)
        elif kind == "compaction" and item.get("encrypted_content"):
            self.encrypted(key, at)
        elif self.tools.item(item, stamp, at):
            self.turns.did()
            self._reply = None  # (what it said before the call did not close its turn)

    def line(self, number: int, line: dict[str, Any]) -> None:
        at = when(line.get("timestamp"))
        key = f"{line.get('timestamp', '')}#{number}"
        kind = line.get("type")
        payload = line.get("payload")
        if isinstance(payload, dict) and isinstance(kind, str):
            self.enveloped = True
            self.envelope(kind, payload, line, key, at)
            return
        if "record_type" in line:
            return
        if number == 1 and "id" in line and "type" not in line:
            _meta(self.plan, line)
            return
        if self.enveloped:
            self.passed[str(kind or "untyped")] += 1
            return
        # The bare era: response items on their own lines.
        text = _texts(line.get("content"))
        stamp = f"codex {line.get('timestamp') or short_hash(key, text)}"
        self.response_item(line, stamp, key, at, enveloped=False)

    def finish(self, path: Path) -> None:
        self.flush()
        self.closing()
        self.talk.finish()
        self.tools.finish()
        self.turns.settle()
        plan = self.plan
        if self.passed:
            kinds = ", ".join(f"{k} ({n})" for k, n in sorted(self.passed.items()))
            plan.notes.append(f"passed over {sum(self.passed.values())} lines of types this reader does not know: {kinds}")
        model = self.model
        if model and "agent" in plan.session:
            plan.session["agent"] += f" with {model}"
        elif model:
            plan.fact("agent", f"Codex CLI with {model}")
        if "title" not in plan.session:
            first = next((r.title for r in plan.records if r.kind == "instruction"), None)
            plan.fact("title", first or f"Codex session {path.name.split('.')[0]}")


def _read(path: Path, plan: ImportPlan, progress: Progress | None) -> None:
    reader = _Reader(plan)
    try:
        for number, line in iter_jsonl(path, plan, _WHAT, progress):
            reader.line(number, line)
    except RecursionError:
        raise StatedumpError("a line nests too deeply to read", where=plan.path, hint="is this a Codex rollout?") from None
    reader.finish(plan.path)


def read(path: Path, progress: Progress | None = None) -> ImportPlan:
    """Read a Codex rollout (plain or zstd-compressed) into a plan."""
    plan = ImportPlan("codex", path)
    if not is_zstd(path):
        _read(path, plan, progress)
        return plan
    with decompressed(path) as plain:
        try:
            _read(plain, plan, progress)
        except StatedumpError as err:
            if err.where == str(plain):
                err.where = str(path)
            raise
    return plan
