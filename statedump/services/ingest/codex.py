"""Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`), streamed.

Three eras are read: bare lines (before the envelope; the first line holds the session
id, the rest are response items), the `{timestamp, type, payload}` envelope, and its
later meta keys. What the person typed comes from `event_msg/user_message` (in the bare
era, from user messages that are not harness context); `compacted` summaries are
imported as Markdown and become checkpoints, as does an empty user message followed by
a state dump.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from statedump.services.ingest.jsonl import Progress, iter_jsonl
from statedump.services.ingest.plan import ImportPlan, short_hash
from statedump.services.ingest.transcript import Transcript, when

_INJECTED = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<user_shell_command>",
)
_REQUEST_MARKER = "## My request for Codex:"


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict) and "text" in c)
    return ""


def _typed(text: str) -> str | None:
    """The human part of a bare-era user message, or None for injected context."""
    if _REQUEST_MARKER in text:
        return text.split(_REQUEST_MARKER, 1)[1].strip()
    return None if text.lstrip().startswith(_INJECTED) else text


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


def read(path: Path, progress: Progress | None = None) -> ImportPlan:
    """Read a Codex rollout into a plan."""
    plan = ImportPlan("codex", path)
    talk = Transcript(plan, "codex")
    enveloped = False
    model = None
    for number, line in iter_jsonl(path, plan, "Codex rollout (JSONL)", progress):
        at = when(line.get("timestamp"))
        key = f"{line.get('timestamp', '')}#{number}"
        kind = line.get("type")
        payload = line.get("payload")
        if isinstance(payload, dict) and isinstance(kind, str):
            enveloped = True
            ptype = payload.get("type")
            if kind == "session_meta":
                _meta(plan, payload)
            elif kind == "turn_context":
                model = model or payload.get("model")
                plan.fact("cwd", payload.get("cwd"))
            elif kind == "event_msg" and ptype == "user_message":
                talk.user(str(payload.get("message") or ""), f"codex {line.get('timestamp') or key}", at)
            elif kind == "event_msg" and ptype == "agent_message":
                talk.assistant(str(payload.get("message") or ""), key, at)
            elif kind == "compacted":
                talk.summary(str(payload.get("message") or ""), key, at, "compaction summary")
            continue
        if "record_type" in line:
            continue
        if number == 1 and "id" in line and "type" not in line:
            _meta(plan, line)
            continue
        if enveloped:
            continue
        # The bare era: response items on their own lines.
        if kind == "message" and line.get("role") == "user":
            text = _typed(_texts(line.get("content")))
            if text is not None:
                talk.user(text, f"codex {line.get('timestamp') or short_hash(key, text)}", at)
        elif kind == "message" and line.get("role") == "assistant":
            talk.assistant(_texts(line.get("content")), key, at)
    talk.finish()
    if model and "agent" in plan.session:
        plan.session["agent"] += f" with {model}"
    elif model:
        plan.fact("agent", f"Codex CLI with {model}")
    if "title" not in plan.session:
        first = next((r.title for r in plan.records if r.kind == "instruction"), None)
        plan.fact("title", first or f"Codex session {path.stem}")
    return plan
