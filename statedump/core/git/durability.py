"""Whether git is asked to make a new commit survive a power cut, read from its config files
without starting a process.

statedump writes a journal before it touches a record file, so that `doctor` can put the files
back if the writer dies before its commit. Against a killed process (the case the crash tests
kill -9 for) the journal is safe without an `fsync`: the kernel keeps what was written. Only a
power cut or a kernel crash needs the `fsync`, and then the commit the write was making survives
only if git syncs the loose objects it writes — which it does not by default (`core.fsync`
leaves loose objects out; `core.fsyncObjectFiles` is false). So the journal is synced exactly
when git is told to sync loose objects: as durable as the commit it guards, and no slower.

The files read are git's own, in git's order (system, global, the repository's; later wins);
`include` and `includeIf` are not followed, nor `-c` settings on git's command line.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

# `core.fsync` words (git's Documentation/config/core.txt), as sets of the components they name.
_WORDS: dict[str, frozenset[str]] = {
    "loose-object": frozenset({"loose-object"}),
    "pack": frozenset({"pack"}),
    "pack-metadata": frozenset({"pack-metadata"}),
    "commit-graph": frozenset({"commit-graph"}),
    "index": frozenset({"index"}),
    "reference": frozenset({"reference"}),
    "objects": frozenset({"loose-object", "pack"}),
    "derived-metadata": frozenset({"pack-metadata", "commit-graph"}),
    "committed": frozenset({"loose-object", "pack", "reference"}),
    "added": frozenset({"loose-object", "pack", "reference", "index"}),
    "all": frozenset({"loose-object", "pack", "pack-metadata", "commit-graph", "index", "reference"}),
}
# git's own default: objects and derived metadata, but not loose objects.
_DEFAULT = frozenset({"pack", "pack-metadata", "commit-graph"})
_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]\s*(.*)$')
_ENTRY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*?))?\s*$")
_TRUE = {"true", "yes", "on", "1", ""}


def _config_files(git_dir: Path) -> list[Path]:
    files: list[Path] = []
    if not os.environ.get("GIT_CONFIG_NOSYSTEM"):
        files.append(Path(os.environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"))
    if os.environ.get("GIT_CONFIG_GLOBAL"):
        files.append(Path(os.environ["GIT_CONFIG_GLOBAL"]))
    else:
        xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        files += [Path(xdg) / "git" / "config", Path.home() / ".gitconfig"]
    files.append(git_dir / "config")
    return files


def _core_settings(text: str) -> dict[str, str]:
    """The `[core]` entries of one config file, lower-cased names, last one winning."""
    found: dict[str, str] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        head = _SECTION.match(line)
        if head:
            section, line = head.group(1).lower(), head.group(2).strip()
            if not line:
                continue
        if section != "core":
            continue
        entry = _ENTRY.match(re.split(r"\s[#;]", line, maxsplit=1)[0])
        if entry:
            found[entry.group(1).lower()] = (entry.group(2) or "").strip().strip('"')
    return found


def syncs_loose_objects(git_dir: Path) -> bool:
    """True when git's config asks it to fsync the loose objects a commit writes."""
    settings: dict[str, str] = {}
    for path in _config_files(git_dir):
        try:
            settings.update(_core_settings(path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    if "fsync" in settings:
        components = set(_DEFAULT)
        for word in (w.strip().lower() for w in settings["fsync"].split(",")):
            if word == "none":
                components.clear()
            elif word.startswith("-"):
                components -= _WORDS.get(word[1:], frozenset())
            else:
                components |= _WORDS.get(word, frozenset())
        return "loose-object" in components
    return settings.get("fsyncobjectfiles", "false").lower() in _TRUE
