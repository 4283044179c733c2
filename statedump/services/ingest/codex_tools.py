"""Codex tool calls: `function_call` / `custom_tool_call` / `local_shell_call` items paired with
their outputs by `call_id`, and handed to the agent-neutral `Actions` (plan -> tasks, shell ->
commands, benchmarks and findings, `apply_patch` -> file records, fetched pages -> references).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from statedump.models import Discovery
from statedump.services.ingest.actions import Actions
from statedump.services.ingest.plan import ImportPlan, one_line

_SHELLS = {"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash"}


def _decode(value: Any) -> Any:
    """A JSON string decoded (Codex writes arguments and outputs as JSON text), else the value."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _script(command: Any) -> str | None:
    """The command line a shell call ran: `["bash", "-lc", "…"]` is its script."""
    if isinstance(command, list) and all(isinstance(w, str) for w in command):
        if len(command) == 3 and command[0] in _SHELLS and command[1] in ("-lc", "-c", "-l"):
            return str(command[2])
        return " ".join(str(w) for w in command) or None
    return command if isinstance(command, str) and command.strip() else None


def _result(output: Any) -> tuple[str, bool]:
    """A call's output as text, and whether it says it failed (a non-zero exit code)."""
    output = _decode(output)
    if isinstance(output, dict):
        meta = output.get("metadata") if isinstance(output.get("metadata"), dict) else {}
        assert isinstance(meta, dict)
        code = meta.get("exit_code", output.get("exit_code"))
        text = output.get("output") or output.get("content") or ""
        failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
        text = str(text)
        if failed:
            text += f"\nExit code: {code}"
        return text, failed
    if isinstance(output, list):
        return "\n".join(str(o.get("text", "")) for o in output if isinstance(o, dict)), False
    return ("" if output is None else str(output)), False


@dataclass
class _Call:
    name: str
    args: dict[str, Any]
    source: str
    at: datetime | None


@dataclass
class CodexTools:
    """Collects a rollout's tool calls and hands each to `Actions` when its output arrives."""

    plan: ImportPlan
    actions: Actions = field(init=False)
    _open: dict[str, _Call] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.actions = Actions(self.plan, agent="codex")

    def item(self, item: dict[str, Any], source: str, at: datetime | None) -> bool:
        """A response item; True when it was a tool call or a tool output."""
        kind = item.get("type")
        call_id = str(item.get("call_id") or item.get("id") or source)
        if kind == "function_call":
            args = _decode(item.get("arguments"))
            self._open[call_id] = _Call(str(item.get("name") or ""), args if isinstance(args, dict) else {}, source, at)
        elif kind == "custom_tool_call":
            self._open[call_id] = _Call(str(item.get("name") or ""), {"input": str(item.get("input") or "")}, source, at)
        elif kind == "local_shell_call":
            action = item.get("action") if isinstance(item.get("action"), dict) else {}
            assert isinstance(action, dict)
            self._open[call_id] = _Call("shell", {"command": action.get("command")}, source, at)
        elif kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
            call = self._open.pop(call_id, None)
            if call is not None:
                text, failed = _result(item.get("output"))
                self._run(call, text, failed)
        else:
            return False
        return True

    def _run(self, call: _Call, result: str, failed: bool) -> None:
        name, args = call.name.lower(), call.args
        if name in ("shell", "exec_command", "local_shell", "container.exec"):
            script = _script(args.get("command") or args.get("cmd"))
            if script is None:
                return
            if "apply_patch" in script and "*** Begin Patch" in script:
                if not failed:
                    self.actions.tool("apply_patch", {"input": script}, result, failed, call.source, call.at)
                return
            self.actions.tool("shell", {"command": script}, result, failed, call.source, call.at)
        elif name == "apply_patch":
            if not failed:
                self.actions.tool(
                    "apply_patch", {"input": args.get("input") or args.get("patch") or ""}, result, failed, call.source, call.at
                )
        elif name == "update_plan":
            self.actions.tool("update_plan", {"plan": args.get("plan")}, result, failed, call.source, call.at)
            note = args.get("explanation")
            if isinstance(note, str) and len(note.strip()) >= 20:
                # What the agent says it learned while restating its plan.
                self.plan.add(
                    Discovery(
                        id=self.plan.readable_id("disc", one_line(note, 40), key=f"plan-note:{note}"),
                        title=one_line(note, 200),
                        body=note.strip() if len(note) > 200 else None,
                        source=call.source or None,
                        at=call.at,
                        tags=["codex", "plan"],
                    )
                )
        elif "fetch" in name and isinstance(args.get("url"), str):
            self.actions.tool("webfetch", {"url": args["url"]}, result, failed, call.source, call.at)
        else:
            self.actions.tool(call.name, args, result, failed, call.source, call.at)

    def user_text(self, text: str, source: str, at: datetime | None) -> None:
        """URLs the person gave become references."""
        self.actions.user_urls(text, source, at)

    def finish(self) -> None:
        """Calls whose output never came (the rollout was cut) still count, without a result."""
        for call in list(self._open.values()):
            self._run(call, "", False)
        self._open.clear()
        cwd = self.plan.session.get("cwd")
        if isinstance(cwd, str) and cwd.startswith("/"):
            self.actions.file(cwd, "the session's working directory")
        self.actions.finish()
