"""Each agent's configuration files, and statedump's entries in them, added and taken out again.

Formats, from each agent's documentation and code as of late 2026 (docs/agents.md lists them):

- Claude Code: hooks in `.claude/settings.json` (user: `~/.claude/settings.json`) as
  `{"hooks": {EVENT: [{"matcher": ..., "hooks": [{"type": "command", "command": ..., "timeout": s}]}]}}`;
  MCP servers in `.mcp.json` (user: `~/.claude.json`) under `mcpServers`.
- Codex: hooks in `.codex/hooks.json` (user: `$CODEX_HOME/hooks.json`), the same nesting; its root
  may hold only `description` and `hooks` (a `$schema` key makes Codex refuse the whole file);
  MCP servers in `.codex/config.toml` as `[mcp_servers.NAME]` (edited with tomlkit, so the
  user's comments, order and spacing stay as they are).
- opencode: a plugin file `.opencode/plugins/statedump.js` (user: `~/.config/opencode/plugins/`)
  that calls `statedump hook` from `session.idle`, `session.compacted`, `tool.execute.before/after`
  and `experimental.session.compacting`; MCP servers in `opencode.json` under `mcp`.

Our entries are found by their command (`… statedump hook …`) and the server name `statedump`;
everything else in a file is left as it was.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from statedump.core.errors import StatedumpError

SERVER = "statedump"
"""The MCP server's name in every agent's config."""
OURS = re.compile(r"^\S*statedump\S* hook ")
"""A hook command statedump installed."""
CODEX_EVENTS = (
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "UserPromptSubmit",
    "SubagentStart",
    "SubagentStop",
    "Stop",
)
"""The events a Codex hooks file may name (codex-rs/config hook events)."""
CODEX_ROOT_KEYS = ("description", "hooks")


@dataclass(frozen=True)
class HookSpec:
    """One hook statedump installs: the event, its matcher, its timeout (seconds)."""

    event: str
    matcher: str | None = None
    timeout: int = 30


CLAUDE_HOOKS = (
    HookSpec("PreCompact"),
    HookSpec("PostCompact"),
    HookSpec("SessionStart", "compact|resume|clear"),
    HookSpec("SessionEnd"),
    HookSpec("Stop"),
    HookSpec("PreToolUse", "Bash", 10),
)
# Codex has no SessionEnd, and its PostCompact carries no summary: nothing to keep there.
CODEX_HOOKS = (
    HookSpec("PreCompact"),
    HookSpec("SessionStart", "compact|resume|clear"),
    HookSpec("Stop"),
    HookSpec("PreToolUse", "Bash", 10),
)


@dataclass(frozen=True)
class Wiring:
    """What to install: the command line every hook starts with and the guard and budget."""

    executable: str = "statedump"
    guard: str = "warn"
    budget: int = 2000
    store: str | None = None
    session: str | None = None
    extra: list[str] = field(default_factory=list)

    def hook_command(self, agent: str, event: str) -> str:
        words = [self.executable, "hook", event, "--agent", agent]
        if event == "PreToolUse":
            words += ["--guard", self.guard]
        if event == "SessionStart":
            words += ["--budget", str(self.budget)]
        words += self.common()
        return shlex.join(words)

    def common(self) -> list[str]:
        out = []
        if self.store:
            out += ["--store", self.store]
        if self.session:
            out += ["-s", self.session]
        return out

    def server_args(self) -> list[str]:
        return ["mcp", *(["--store", self.store] if self.store else [])]


# -- JSON documents ------------------------------------------------------------------------


@dataclass
class Document:
    """A JSON config file read for editing: its data, and how it was written."""

    path: Path
    data: dict[str, Any]
    original: bytes | None
    indent: int | str = 2

    @classmethod
    def read(cls, path: Path) -> Document:
        if not path.exists():
            return cls(path, {}, None)
        raw = path.read_bytes()
        try:
            data = json.loads(raw.decode("utf-8")) if raw.strip() else {}
        except (UnicodeDecodeError, ValueError) as err:
            raise StatedumpError(
                f"not valid JSON ({err})", where=path, hint="fix the file (comments are not JSON), then run again"
            ) from None
        if not isinstance(data, dict):
            raise StatedumpError("the file is not a JSON object", where=path, hint="it must hold {...} at the top")
        return cls(path, data, raw, _indent(raw))

    def text(self) -> bytes:
        if self.original is not None and self.original.strip():
            # The author's layout kept for everything install did not change (jsonlayout).
            from statedump.services.agents.jsonlayout import rewrite

            return rewrite(self.original.decode("utf-8"), self.data, self.indent).encode("utf-8")
        body = json.dumps(self.data, indent=self.indent, ensure_ascii=False)
        newline = b"\n" if self.original is None or self.original.endswith(b"\n") else b""
        return body.encode("utf-8") + newline


def _indent(raw: bytes) -> int | str:
    for line in raw.decode("utf-8", errors="replace").splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return 2


def container(data: dict[str, Any], key: str, kind: type, where: Path) -> Any:
    """`data[key]`, made an empty object or array when missing; one clear error when it is something else."""
    value = data.setdefault(key, kind())
    if not isinstance(value, kind):
        raise StatedumpError(f"`{key}` is not a JSON {'object' if kind is dict else 'array'}", where=where, hint="fix it, then run again")
    return value


def _is_ours(handler: Any) -> bool:
    return isinstance(handler, dict) and isinstance(handler.get("command"), str) and bool(OURS.match(handler["command"]))


def add_hooks(doc: Document, agent: str, specs: tuple[HookSpec, ...], wiring: Wiring) -> None:
    """Put statedump's hooks in `doc` (replacing any earlier ones of ours, in their place)."""
    hooks = container(doc.data, "hooks", dict, doc.path)
    wanted = {s.event for s in specs}
    for event in list(hooks):
        if event not in wanted and isinstance(hooks[event], list):
            _drop_ours(hooks, event)  # the guard turned off: its hook goes
    for spec in specs:
        groups = container(hooks, spec.event, list, doc.path)
        handler = {"type": "command", "command": wiring.hook_command(agent, spec.event), "timeout": spec.timeout}
        group: dict[str, Any] = {"matcher": spec.matcher} if spec.matcher is not None else {}
        group["hooks"] = [handler]
        place = next((i for i, g in enumerate(groups) if isinstance(g, dict) and g.get("hooks") and all(map(_is_ours, g["hooks"]))), None)
        if place is None:
            _drop_ours(hooks, spec.event)
            hooks[spec.event].append(group)
        else:
            groups[place] = group
            hooks[spec.event] = [g for i, g in enumerate(groups) if i == place or not _only_ours(g)]


def _only_ours(group: Any) -> bool:
    return isinstance(group, dict) and bool(group.get("hooks")) and all(map(_is_ours, group["hooks"]))


def _drop_ours(hooks: dict[str, Any], event: str) -> None:
    kept = []
    for group in hooks[event]:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list) and any(map(_is_ours, group["hooks"])):
            rest = [h for h in group["hooks"] if not _is_ours(h)]
            if rest:
                kept.append({**group, "hooks": rest})
            continue
        kept.append(group)
    hooks[event] = kept


def remove_hooks(doc: Document) -> None:
    """Take statedump's hooks out of `doc`; an event or `hooks` left empty by that goes too."""
    hooks = doc.data.get("hooks")
    if not isinstance(hooks, dict):
        return
    for event in list(hooks):
        if not isinstance(hooks[event], list):
            continue
        before = len(hooks[event])
        _drop_ours(hooks, event)
        if before and not hooks[event]:
            del hooks[event]
    if not hooks:
        del doc.data["hooks"]


def installed_hooks(data: dict[str, Any]) -> dict[str, str]:
    """Event -> our command, for every statedump hook in a hooks document."""
    hooks = data.get("hooks")
    out: dict[str, str] = {}
    if isinstance(hooks, dict):
        for event, groups in hooks.items():
            for group in groups if isinstance(groups, list) else []:
                for h in group.get("hooks", []) if isinstance(group, dict) else []:
                    if _is_ours(h):
                        out[event] = h["command"]
    return out


def codex_refusal(data: dict[str, Any]) -> str | None:
    """Why Codex would refuse this hooks document, or None: its root holds only `description` and
    `hooks`, `hooks` maps known events to lists of matcher groups of command handlers."""
    extra = [k for k in data if k not in CODEX_ROOT_KEYS]
    if extra:
        return f"the top level has {', '.join(repr(k) for k in extra)}; Codex accepts only `description` and `hooks` there"
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        return "`hooks` is not an object"
    for event, groups in hooks.items():
        if event not in CODEX_EVENTS:
            return f"unknown event {event!r}"
        if not isinstance(groups, list) or not all(isinstance(g, dict) and isinstance(g.get("hooks", []), list) for g in groups):
            return f"`hooks.{event}` is not a list of matcher groups"
        for g in groups:
            for h in g.get("hooks", []):
                if not isinstance(h, dict) or h.get("type") not in ("command", "prompt", "agent"):
                    return f"a handler of `{event}` has no known `type`"
                if h.get("type") == "command" and not isinstance(h.get("command"), str):
                    return f"a command handler of `{event}` has no `command`"
    return None


def server_entry(agent: str, wiring: Wiring) -> dict[str, Any]:
    """statedump's MCP server as the agent's config writes it."""
    args = wiring.server_args()
    if agent == "opencode":
        return {"type": "local", "command": [wiring.executable, *args], "enabled": True}
    return {"command": wiring.executable, "args": args}


def is_our_server(agent: str, value: Any) -> bool:
    """True for a `statedump` MCP entry that runs `statedump mcp` (whatever its options)."""
    if not isinstance(value, dict):
        return False
    command = value.get("command")
    if agent == "opencode":
        return isinstance(command, list) and len(command) >= 2 and "statedump" in str(command[0]) and command[1] == "mcp"
    args = value.get("args")
    return "statedump" in str(command) and isinstance(args, list) and args[:1] == ["mcp"]


# -- TOML (Codex config.toml) --------------------------------------------------------------


def read_toml(path: Path) -> tuple[Any, bytes | None]:
    """The parsed document (tomlkit, formatting kept) and the file's bytes (None: no file)."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    raw = path.read_bytes() if path.exists() else None
    try:
        return tomlkit.parse(raw.decode("utf-8") if raw else ""), raw
    except (UnicodeDecodeError, TOMLKitError) as err:
        raise StatedumpError(f"not valid TOML ({err})", where=path, hint="fix the file, then run again") from None


def toml_add_server(doc: Any, wiring: Wiring) -> str:
    """`[mcp_servers.statedump]` added: `added`, or `ours` / `foreign` when one was there already."""
    import tomlkit

    servers = doc.get("mcp_servers")
    if servers is not None and SERVER in servers:
        return "ours" if is_our_server("codex", dict(servers[SERVER])) else "foreign"
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        doc.add("mcp_servers", servers)
    table = tomlkit.table()
    entry = server_entry("codex", wiring)
    table.add("command", entry["command"])
    table.add("args", entry["args"])
    table.add(tomlkit.nl())  # a blank line before whatever table follows it
    servers.add(SERVER, table)
    return "added"


def toml_remove_server(doc: Any) -> None:
    servers = doc.get("mcp_servers")
    if servers is not None and SERVER in servers and is_our_server("codex", dict(servers[SERVER])):
        del servers[SERVER]
        if not servers:
            del doc["mcp_servers"]


def toml_text(doc: Any) -> bytes:
    import tomlkit

    text = tomlkit.dumps(doc)
    # Taking a table out leaves the blank line that stood before it.
    return (text.rstrip("\n") + "\n" if text.strip() else "").encode("utf-8")


# -- the opencode plugin -------------------------------------------------------------------

PLUGIN_MARK = "// statedump-plugin v1"


def plugin_text(wiring: Wiring) -> bytes:
    """The opencode plugin file, with the hook command line filled in."""
    template = (Path(__file__).parent / "opencode_plugin.js").read_text(encoding="utf-8")
    prefix = [wiring.executable, "hook"]
    return (
        template.replace("__PREFIX__", json.dumps(prefix))
        .replace("__COMMON__", json.dumps(wiring.common()))
        .replace("__GUARD__", json.dumps(wiring.guard))
        .replace("__BUDGET__", json.dumps(str(wiring.budget)))
        .encode("utf-8")
    )


def plugin_guard(text: str) -> str | None:
    """The guard mode an installed plugin was written with."""
    found = re.search(r'const GUARD = "(\w+)"', text)
    return found.group(1) if found else None


def home() -> Path:
    return Path(os.path.expanduser("~"))
