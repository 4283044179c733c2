"""opencode tool parts handed to the agent-neutral `Actions`: `todowrite` -> tasks, `bash` ->
commands, benchmarks and findings, `edit`/`write`/`apply_patch` -> file records, `webfetch` ->
references, and `task` (a subagent) -> a task naming the child session it ran in.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from statedump.models import Discovery
from statedump.services.ingest.actions import Actions
from statedump.services.ingest.plan import ImportPlan, one_line

_CHILD = re.compile(r"\btask_id:\s*(ses_[A-Za-z0-9]+)")
_RESULT = re.compile(r"<task_result>\s*(.*?)\s*(?:</task_result>|$)", re.S)
_FILES_LINE = re.compile(r"^\s*[-*]?\s*(?:\*\*)?Files?(?:\*\*)?\s*:(.*)$", re.M | re.I)
_TICKED = re.compile(r"`([^`\s]+)`")
_DELEGATED = ("message", "prompt", "task", "instructions")
_STATUS = {"completed": "done", "running": "in-progress", "pending": "in-progress", "error": "blocked"}


def child_session(state: dict[str, Any]) -> str | None:
    """The child session a `task` part ran its subagent in (`metadata.sessionId`, or the output's `task_id:`)."""
    meta = state.get("metadata") if isinstance(state.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    sid = meta.get("sessionId")
    if isinstance(sid, str) and sid:
        return sid
    found = _CHILD.search(str(state.get("output") or ""))
    return found.group(1) if found else None


class OpencodeTools:
    """One session's tool parts, in order."""

    def __init__(self, plan: ImportPlan):
        self.plan = plan
        self.actions = Actions(plan, agent="opencode")
        self.children: list[str] = []

    def part(self, part: dict[str, Any], source: str, at: datetime | None) -> None:
        state = part.get("state") if isinstance(part.get("state"), dict) else {}
        assert isinstance(state, dict)
        name = str(part.get("tool") or "")
        args = state.get("input") if isinstance(state.get("input"), dict) else {}
        assert isinstance(args, dict)
        status = str(state.get("status") or "")
        result = str(state.get("output") or state.get("error") or "")
        failed = status == "error"
        meta = state.get("metadata") if isinstance(state.get("metadata"), dict) else {}
        assert isinstance(meta, dict)
        if name == "task":
            self._task(args, state, status, source, at)
            return
        if name == "bash" and isinstance(meta.get("exit"), int) and meta["exit"] != 0:
            result += f"\nExit code: {meta['exit']}"
        if name == "apply_patch":
            args = {"input": args.get("patchText") or args.get("input") or ""}
        if name in ("edit", "write") and "filePath" in args:
            args = {**args, "file_path": args["filePath"]}
        if status in ("pending", "running") and name != "todowrite":
            # Not done yet. A call that hands work on (a message or prompt for another agent) is that work, under way.
            handed = next((args[k] for k in _DELEGATED if isinstance(args.get(k), str) and len(args[k].strip()) >= 20), None)
            if handed is not None:
                self.actions.task(handed, "in-progress", source, at, body=f"Handed on through {name}; the call had not returned.")
            return
        self.actions.tool(name, args, result, failed, source, at)

    def _task(self, args: dict[str, Any], state: dict[str, Any], status: str, source: str, at: datetime | None) -> None:
        what = args.get("description") or args.get("prompt")
        if not isinstance(what, str) or not what.strip():
            return
        child = child_session(state)
        agent = args.get("subagent_type")
        body = " ".join(
            x
            for x in (
                f"Subagent {agent}." if agent else "",
                f"Ran in child session {child} (import it on its own: `opencode export {child}`)." if child else "",
                f"Failed: {state.get('error')}" if status == "error" and state.get("error") else "",
            )
            if x
        )
        task = self.actions.task(what, _STATUS.get(status, "todo"), source, at, body=body or None)
        found = _RESULT.search(str(state.get("output") or "")) if status == "completed" else None
        if found is not None and found.group(1).strip():
            report = found.group(1).strip()[:4000]
            self.plan.add(
                Discovery(
                    id=self.plan.readable_id("disc", f"subagent {what}", key=f"subagent:{task.id}"),
                    title=one_line(f"Subagent {agent or 'task'} reported on: {what}", 200),
                    body=report,
                    source=source or None,
                    at=at,
                    tags=["opencode", "subagent"],
                )
            )
            for line in _FILES_LINE.findall(report):
                for path in _TICKED.findall(line):
                    self.actions.file(path, f"named in subagent {agent or 'task'}'s report", source, at)
        if child and child not in self.children:
            self.children.append(child)

    def user_text(self, text: str, source: str, at: datetime | None) -> None:
        self.actions.user_urls(text, source, at)

    def finish(self) -> None:
        cwd = self.plan.session.get("cwd")
        if isinstance(cwd, str) and cwd.startswith("/"):
            self.actions.file(cwd, "the session's working directory")
        self.actions.finish()
        if self.children:
            self.plan.notes.append(f"subagent child sessions (import each on its own): {', '.join(self.children)}")
