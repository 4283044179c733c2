"""Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`), streamed.

Session facts come from the line envelopes (cwd, git branch, version, session id) and the
assistant messages (model). Messages the person typed become instructions, with the line's
uuid as source and its timestamp as time; tool results, harness text and sidechains are
left out. Compaction summaries (`isCompactSummary` user lines) are imported as Markdown
and become checkpoints; so does an empty user message followed by a state dump.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from statedump.ingest.jsonl import Progress, iter_jsonl
from statedump.ingest.plan import ImportPlan
from statedump.ingest.transcript import Transcript, when

_HARNESS = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<system-reminder>",
    "<task-notification>",
    "<bash-input>",
    "<bash-stdout>",
    "Caveat: ",
    "[Request interrupted by user",
)


def _user_text(content: Any) -> str | None:
    """What the person typed, or None for a tool result or harness text."""
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return None
        text = "\n\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    else:
        return None
    return None if text.lstrip().startswith(_HARNESS) else text


def _assistant_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def read(path: Path, progress: Progress | None = None) -> ImportPlan:
    """Read a Claude Code transcript into a plan."""
    plan = ImportPlan("claude-code", path)
    talk = Transcript(plan, "claude-code")
    version = None
    for number, line in iter_jsonl(path, plan, "Claude Code transcript (JSONL)", progress):
        kind = line.get("type")
        if kind in ("summary", "custom-title"):
            plan.fact("title", line.get("customTitle") or line.get("summary"))
            continue
        if kind not in ("user", "assistant", "system") or line.get("isSidechain"):
            continue
        session_id = line.get("sessionId")
        if isinstance(session_id, str):
            plan.fact("id", f"claude-{session_id[:8].lower()}")
        plan.fact("cwd", line.get("cwd"))
        plan.fact("branch", line.get("gitBranch"))
        plan.fact("started", when(line.get("timestamp")))
        version = version or line.get("version")
        at = when(line.get("timestamp"))
        key = str(line.get("uuid") or f"{path.name}:{number}")
        message = line.get("message") if isinstance(line.get("message"), dict) else {}
        assert isinstance(message, dict)
        if kind == "assistant":
            model = message.get("model")
            if isinstance(model, str) and not model.startswith("<"):
                plan.fact("model_used", model)
            talk.assistant(_assistant_text(message), key, at)
        elif kind == "user":
            if line.get("isCompactSummary"):
                text = _user_text(message.get("content")) or ""
                talk.summary(text, key, at, "compaction summary")
            elif not line.get("isMeta"):
                typed = _user_text(message.get("content"))
                if typed is not None:
                    talk.user(typed, key, at)
    talk.finish()
    if version:
        plan.fact("agent", f"Claude Code {version}" + (f" ({plan.session['model_used']})" if "model_used" in plan.session else ""))
    elif "model_used" in plan.session:
        plan.fact("agent", f"Claude Code ({plan.session['model_used']})")
    plan.session.pop("model_used", None)
    if "title" not in plan.session and "cwd" in plan.session:
        plan.fact("title", f"Claude Code session in {plan.session['cwd']}")
    return plan
