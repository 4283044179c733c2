"""`statedump agent install|uninstall|status`: statedump wired into an agent's files and out again.

Install merges into what is there: other hooks and servers stay as they are, a file is written
only when something changes (a second install writes nothing), and before the first change the
file's original bytes are kept beside it as `<file>.statedump-backup`. Uninstall takes out
exactly what install put in; when what is left is the original document, the backup's bytes are
put back (so a round trip leaves the file byte for byte as it was) and the backup goes. A file
install created is removed when nothing else is left in it, and so is a folder install made for
one (recorded in `$XDG_STATE_HOME/statedump/agent-folders.json` when it made it): never the
project folder, nor anything above it, nor a folder that was there before. A Codex hooks file is checked
against what Codex accepts before it is written, and never written otherwise.
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from statedump.core.errors import StatedumpError
from statedump.core.store.files import write_atomic
from statedump.services.agents import configs
from statedump.services.agents.configs import CLAUDE_HOOKS, CODEX_HOOKS, SERVER, Document, Wiring

BACKUP = ".statedump-backup"
FOLDERS = "agent-folders.json"
"""The folders install made (in `locate.fallback_dir()`): only those may go again at uninstall."""


@dataclass(frozen=True)
class Change:
    """What happened to one file."""

    path: Path
    action: str
    """`created`, `updated`, `unchanged`, `restored` (the original bytes back), `removed`, `kept`."""
    note: str = ""


@dataclass
class Files:
    """The files of one agent at one scope."""

    hooks: Path | None = None
    mcp: Path | None = None
    plugin: Path | None = None


def agent_files(agent: str, scope: str, project: Path) -> Files:
    """Where `agent` keeps its hooks, MCP servers and plugins, for the project or the user."""
    import os

    home = configs.home()
    if agent == "claude-code":
        if scope == "user":
            return Files(hooks=home / ".claude" / "settings.json", mcp=home / ".claude.json")
        return Files(hooks=project / ".claude" / "settings.json", mcp=project / ".mcp.json")
    if agent == "codex":
        base = Path(os.environ.get("CODEX_HOME") or home / ".codex") if scope == "user" else project / ".codex"
        return Files(hooks=base / "hooks.json", mcp=base / "config.toml")
    if agent == "opencode":
        base = home / ".config" / "opencode" if scope == "user" else project
        plugins = base / "plugins" if scope == "user" else project / ".opencode" / "plugins"
        return Files(mcp=base / "opencode.json", plugin=plugins / "statedump.js")
    raise StatedumpError(f"unknown agent {agent!r}", where="AGENT", hint="use claude-code, codex or opencode")


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + BACKUP)


def _folders_file() -> Path:
    from statedump.services.agents.locate import fallback_dir

    return fallback_dir() / FOLDERS


def _made_folders() -> set[str]:
    try:
        data = json.loads(_folders_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {str(p) for p in data} if isinstance(data, list) else set()


def _save_folders(folders: set[str]) -> None:
    path = _folders_file()
    if folders:
        write_atomic(path, json.dumps(sorted(folders), indent=1).encode("utf-8") + b"\n")
    else:
        with contextlib.suppress(OSError):
            path.unlink()


def _make_parent(path: Path, root: Path) -> None:
    """Make the folders `path` needs below `root`, and note those made (for `_prune`)."""
    missing = []
    folder = path.parent.resolve()
    while not folder.exists() and folder != root and root in folder.parents:
        missing.append(folder)
        folder = folder.parent
    if missing:
        path.parent.mkdir(parents=True, exist_ok=True)
        _save_folders(_made_folders() | {str(f) for f in missing})


def _write(path: Path, new: bytes, original: bytes | None, root: Path) -> Change:
    if new == original:
        return Change(path, "unchanged")
    if original is not None and not backup_path(path).exists():
        write_atomic(backup_path(path), original)
    _make_parent(path, root)
    write_atomic(path, new)
    return Change(path, "created" if original is None else "updated")


def _finish(path: Path, new: bytes, empty: bool, same_as_backup: Any, root: Path) -> Change:
    """After taking our entries out: the original back, the file removed, or the rest written."""
    backup = backup_path(path)
    if backup.exists():
        old = backup.read_bytes()
        if same_as_backup(old):
            write_atomic(path, old)
            backup.unlink()
            return Change(path, "restored")
    elif empty:
        path.unlink()
        _prune(path.parent, root)
        return Change(path, "removed")
    if path.read_bytes() == new:
        return Change(path, "unchanged")
    write_atomic(path, new)
    return Change(path, "updated", "the backup stays: the file changed since install")


def _prune(folder: Path, root: Path) -> None:
    """Remove the empty folders install made for a file (.claude, .codex, .opencode/plugins),
    climbing no higher than `root` (the project, or home) and past no folder it did not make."""
    made = _made_folders()
    left = set(made)
    folder = folder.resolve()
    while root in folder.parents and str(folder) in left:
        try:
            folder.rmdir()
        except OSError:
            break  # something else is in it now
        left.discard(str(folder))
        folder = folder.parent
    if left != made:
        _save_folders(left)


# -- JSON files ------------------------------------------------------------------------------


def _install_hooks(agent: str, path: Path, wiring: Wiring, root: Path) -> Change:
    doc = Document.read(path)
    if agent == "codex" and (problem := configs.codex_refusal(doc.data)):
        raise StatedumpError(
            f"Codex refuses this hooks file: {problem}", where=path, hint="fix it (Codex ignores the whole file now), then run again"
        )
    specs: tuple[configs.HookSpec, ...] = CLAUDE_HOOKS if agent == "claude-code" else CODEX_HOOKS
    if wiring.guard == "off":
        specs = tuple(s for s in specs if s.event != "PreToolUse")
    configs.add_hooks(doc, agent, specs, wiring)
    if agent == "codex" and (problem := configs.codex_refusal(doc.data)):
        raise StatedumpError(f"would write a hooks file Codex refuses: {problem}", where=path)
    return _write(path, doc.text(), doc.original, root)


def _strip(data: dict[str, Any], agent: str, key: str) -> dict[str, Any]:
    data = json.loads(json.dumps(data))
    doc = Document(Path(), data, None)
    configs.remove_hooks(doc)
    servers = doc.data.get(key)
    if isinstance(servers, dict) and configs.is_our_server(agent, servers.get(SERVER)):
        del servers[SERVER]
        if not servers:
            del doc.data[key]
    return doc.data


def _same_json(agent: str, key: str, new: dict[str, Any]) -> Any:
    def check(old: bytes) -> bool:
        try:
            return bool(_strip(json.loads(old.decode("utf-8") or "{}"), agent, key) == new)
        except ValueError:
            return False

    return check


def _uninstall_json(agent: str, path: Path, key: str, root: Path) -> Change | None:
    if not path.exists():
        return None
    doc = Document.read(path)
    before = json.dumps(doc.data, sort_keys=True)
    doc.data = _strip(doc.data, agent, key)
    if json.dumps(doc.data, sort_keys=True) == before and not backup_path(path).exists():
        return Change(path, "unchanged")
    return _finish(path, doc.text(), not doc.data, _same_json(agent, key, doc.data), root)


def _mcp_key(agent: str) -> str:
    return "mcp" if agent == "opencode" else "mcpServers"


def _install_mcp_json(agent: str, path: Path, wiring: Wiring, root: Path) -> Change:
    doc = Document.read(path)
    servers = configs.container(doc.data, _mcp_key(agent), dict, path)
    current = servers.get(SERVER)
    if current is not None and not configs.is_our_server(agent, current):
        return Change(path, "kept", f"an MCP server named {SERVER!r} is already there and is not statedump's: left as it is")
    servers[SERVER] = configs.server_entry(agent, wiring)
    return _write(path, doc.text(), doc.original, root)


# -- TOML (Codex) ----------------------------------------------------------------------------


def _install_mcp_toml(path: Path, wiring: Wiring, root: Path) -> Change:
    doc, raw = configs.read_toml(path)
    found = configs.toml_add_server(doc, wiring)
    if found == "foreign":
        return Change(path, "kept", f"an MCP server named {SERVER!r} is already there and is not statedump's: left as it is")
    if found == "ours":
        return Change(path, "unchanged")
    return _write(path, configs.toml_text(doc), raw, root)


def _uninstall_toml(path: Path, root: Path) -> Change | None:
    if not path.exists():
        return None
    doc, raw = configs.read_toml(path)
    configs.toml_remove_server(doc)
    new = configs.toml_text(doc)
    if new == raw and not backup_path(path).exists():
        return Change(path, "unchanged")

    def same(old: bytes) -> bool:
        import tomlkit

        before = tomlkit.parse(old.decode("utf-8"))
        configs.toml_remove_server(before)
        return bool(before.unwrap() == doc.unwrap())

    return _finish(path, new, not doc.unwrap(), same, root)


# -- the plugin ------------------------------------------------------------------------------


def _install_plugin(path: Path, wiring: Wiring, root: Path) -> Change:
    original = path.read_bytes() if path.exists() else None
    if original is not None and configs.PLUGIN_MARK.encode() not in original[:200]:
        raise StatedumpError(
            "a plugin file of that name is there and is not statedump's", where=path, hint="rename or remove it, then run again"
        )
    write = configs.plugin_text(wiring)
    if write == original:
        return Change(path, "unchanged")
    _make_parent(path, root)
    write_atomic(path, write)  # our own file: no backup of an earlier version of it
    return Change(path, "created" if original is None else "updated")


def _uninstall_plugin(path: Path, root: Path) -> Change | None:
    if not path.exists():
        return None
    if configs.PLUGIN_MARK.encode() not in path.read_bytes()[:200]:
        return Change(path, "kept", "not statedump's plugin")
    path.unlink()
    _prune(path.parent, root)
    return Change(path, "removed")


# -- the faces' entry points -----------------------------------------------------------------


def _root(scope: str, project: Path) -> Path:
    """The folder install's files live under: the project, or home; it and what is above it are never removed."""
    return configs.home().resolve() if scope == "user" else project.resolve()


def install(agent: str, scope: str, project: Path, wiring: Wiring) -> list[Change]:
    """Wire `agent` to statedump: hooks (or the plugin) and the MCP server."""
    files = agent_files(agent, scope, project)
    root = _root(scope, project)
    changes = []
    if files.hooks is not None:
        changes.append(_install_hooks(agent, files.hooks, wiring, root))
    if files.plugin is not None:
        changes.append(_install_plugin(files.plugin, wiring, root))
    if files.mcp is not None:
        toml = files.mcp.suffix == ".toml"
        changes.append(_install_mcp_toml(files.mcp, wiring, root) if toml else _install_mcp_json(agent, files.mcp, wiring, root))
    return changes


def uninstall(agent: str, scope: str, project: Path) -> list[Change]:
    """Take out exactly what `install` put in."""
    files = agent_files(agent, scope, project)
    root = _root(scope, project)
    changes: list[Change | None] = []
    if files.hooks is not None:
        changes.append(_uninstall_json(agent, files.hooks, _mcp_key(agent), root))
    if files.plugin is not None:
        changes.append(_uninstall_plugin(files.plugin, root))
    if files.mcp is not None:
        toml = files.mcp.suffix == ".toml"
        changes.append(_uninstall_toml(files.mcp, root) if toml else _uninstall_json(agent, files.mcp, _mcp_key(agent), root))
    return [c for c in changes if c is not None]


@dataclass
class Installed:
    """What one agent has of statedump at one scope."""

    agent: str
    scope: str
    hooks: dict[str, str] = field(default_factory=dict)
    """Event -> the command installed."""
    mcp: bool = False
    plugin: bool = False
    guard: str | None = None
    files: list[Path] = field(default_factory=list)
    store: str | None = None
    """The store the installed hooks (or plugin, or MCP server) name with `--store`."""

    @property
    def any(self) -> bool:
        return bool(self.hooks or self.mcp or self.plugin)


def _named_store(words: list[str]) -> str | None:
    """The value of `--store` in a command line."""
    for i, word in enumerate(words):
        if word == "--store" and i + 1 < len(words):
            return words[i + 1]
        if word.startswith("--store="):
            return word.split("=", 1)[1]
    return None


def installed(agent: str, scope: str, project: Path) -> Installed:
    """What `install` left in the agent's files (unreadable files count as nothing installed)."""
    files = agent_files(agent, scope, project)
    out = Installed(agent, scope)
    with contextlib.suppress(StatedumpError, OSError):
        if files.hooks is not None and files.hooks.exists():
            out.hooks = configs.installed_hooks(Document.read(files.hooks).data)
            out.files.append(files.hooks)
            guard = out.hooks.get("PreToolUse", "")
            out.guard = guard.split("--guard ", 1)[1].split()[0] if "--guard " in guard else ("off" if out.hooks else None)
            out.store = next(filter(None, (_named_store(shlex.split(c)) for c in out.hooks.values())), None)
    with contextlib.suppress(StatedumpError, OSError):
        if files.plugin is not None and files.plugin.exists():
            text = files.plugin.read_text(encoding="utf-8")
            out.plugin = configs.PLUGIN_MARK in text[:200]
            out.guard = configs.plugin_guard(text) if out.plugin else out.guard
            if out.plugin and (common := re.search(r"const COMMON = (\[.*\])", text)):
                out.store = out.store or _named_store(json.loads(common.group(1)))
            out.files.append(files.plugin)
    with contextlib.suppress(StatedumpError, OSError, ImportError):
        if files.mcp is not None and files.mcp.exists():
            if files.mcp.suffix == ".toml":
                doc, _ = configs.read_toml(files.mcp)
                entry = dict(doc.get("mcp_servers", {}).get(SERVER, {}))
                out.mcp = configs.is_our_server("codex", entry)
                words = list(entry.get("args", []))
            else:
                servers = Document.read(files.mcp).data.get(_mcp_key(agent), {})
                server = servers.get(SERVER) if isinstance(servers, dict) else None
                out.mcp = configs.is_our_server(agent, server)
                words = list((server.get("command") if agent == "opencode" else server.get("args")) or []) if out.mcp else []  # type: ignore[union-attr]
            if out.mcp:
                out.files.append(files.mcp)
                out.store = out.store or _named_store([str(w) for w in words])
    return out
