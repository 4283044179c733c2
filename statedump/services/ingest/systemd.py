"""A systemd unit file: one command record holding the unit verbatim (form `systemd`).

The unit is read as systemd reads it: `\\` continuation lines joined (comment lines inside
a continuation skipped), `ExecStart=` with its prefixes (`-`, `@`, `+`, …), the steps
around it (`ExecStartPre=`, `ExecStartPost=`, `ExecStop=`, `ExecStopPost=`, `ExecReload=`),
`Environment=` and `EnvironmentFile=`. What `ExecStart=` starts is recognised the way the
shell importer recognises it (`launch.classify`): a server, a benchmark, or a `docker run` /
`docker compose up` wrapping one, and `bash -c '…'` is read as a script. Drop-in folders
(`unit.d/*.conf`) are not read.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from statedump.core.errors import StatedumpError
from statedump.core.render.markup import code
from statedump.models import Command
from statedump.models.ids import slugify
from statedump.services.flags import parse_command
from statedump.services.ingest.commandinfo import describe, program_name
from statedump.services.ingest.jsonl import Progress, read_text
from statedump.services.ingest.launch import Launch, classify
from statedump.services.ingest.plan import ImportPlan

_SECTION = re.compile(r"^\s*\[[A-Za-z][A-Za-z0-9 -]*\]\s*$", re.M)
_DESCRIPTION = re.compile(r"^\s*Description\s*=\s*(.+?)\s*$", re.M)
_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9]*)\s*=\s*(.*)$")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_EXEC_PREFIX = "@-:+!|"
_STEPS = {
    "ExecStartPre": "Before start (`ExecStartPre`)",
    "ExecStartPost": "After start (`ExecStartPost`)",
    "ExecReload": "Reload (`ExecReload`)",
    "ExecStop": "Stop (`ExecStop`)",
    "ExecStopPost": "After stop (`ExecStopPost`)",
}


def unit_entries(text: str) -> list[tuple[str, str, str]]:
    """(section, key, value) of every assignment, continuation lines joined, in order."""
    out: list[tuple[str, str, str]] = []
    section = ""
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if pending and line.startswith(("#", ";")):
            continue  # systemd skips comment lines inside a continued value
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        line, pending = pending + line, ""
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        if m := _KEY.match(line):
            out.append((section, m.group(1), m.group(2).strip()))
    if pending.strip() and (m := _KEY.match(pending.strip())):
        out.append((section, m.group(1), m.group(2).strip()))
    return out


def _words(value: str) -> list[str]:
    value = value.lstrip(_EXEC_PREFIX)
    try:
        return shlex.split(value)
    except ValueError:
        return value.split()


def _substitute(words: list[str], env: dict[str, str]) -> list[str]:
    """systemd's own `${VAR}` / `$VAR` in Exec lines, from the unit's `Environment=`."""

    def put(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        return env.get(name, m.group(0))

    return [_VARIABLE.sub(put, w) for w in words]


def _launch(words: list[str]) -> Launch | None:
    if len(words) >= 3 and words[0].rsplit("/", 1)[-1] in ("bash", "sh", "dash", "zsh") and "-c" in words[1:-1]:
        # `bash -c '…'`: the script is the launch; read it with the shell parser, only then loaded.
        from statedump.services.ingest.shellparse import parse_script

        script = parse_script(words[words.index("-c", 1) + 1])
        for inv in script.invocations:
            if found := classify([f"{k}={v}" for k, v in inv.prefix.items()] + inv.words):
                return found
        return None
    return classify(words)


def read(path: Path, progress: Progress | None = None) -> ImportPlan:
    """Read a unit file into a plan with one command record."""
    text = read_text(path, "systemd unit")
    if not _SECTION.search(text) or "ExecStart" not in text:
        raise StatedumpError("not a systemd unit: no [Section] header or no ExecStart= line", where=path, hint="name a .service file")
    plan = ImportPlan("systemd", path)
    env: dict[str, str] = {}
    env_files: list[str] = []
    start: list[str] = []
    steps: dict[str, list[str]] = {}
    for _section, key, value in unit_entries(text):
        if key == "Environment":
            for item in _words(value):
                name, eq, val = item.partition("=")
                if eq:
                    env[name] = val
        elif key == "EnvironmentFile" and value:
            env_files.append(value.lstrip("-"))
        elif key == "ExecStart" and value:
            start = _words(value)
        elif key in _STEPS:
            if value:
                steps.setdefault(key, []).append(value.lstrip(_EXEC_PREFIX))
            else:
                steps.pop(key, None)  # an empty assignment resets the list
    resolved = _substitute(start, env)
    launch = _launch(resolved)
    parsed = parse_command(text, "systemd")
    if launch is not None:
        program = launch.label
        flags = describe(parse_command(shlex.join(launch.flag_words()), "shell"))
    else:
        program = program_name(parsed) or (start[0].rsplit("/", 1)[-1] if start else "service")
        flags = describe(parse_command(shlex.join(resolved), "shell")) if resolved else None
    lines: list[str] = []
    if resolved != start:
        lines.append("Runs: " + code(shlex.join(resolved)))
    if launch is not None and launch.image:
        lines.append("Image: " + code(launch.image))
    flag_lines = [line for line in (flags or "").split("\n\n") if line.startswith("Flags:")]
    lines += flag_lines
    if env:
        lines.append("Environment: " + ", ".join(code(f"{k}={v}") for k, v in env.items()))
    if env_files:
        lines.append("Environment file: " + ", ".join(code(f) for f in env_files) + " (not read: it is on the machine, not in the unit)")
    for key, label in _STEPS.items():
        if key in steps:
            lines.append(f"{label}: " + ", ".join(code(s) for s in steps[key]))
    described = _DESCRIPTION.search(text)
    plan.add(
        Command(
            id=slugify(path.name),
            title=f"systemd unit {path.name}: {program}"[:300],
            form="systemd",
            text=text.rstrip("\n") + "\n",
            purpose=described.group(1) if described else None,
            source=path.name,
            tags=["systemd"] + ([launch.kind] if launch else []),
            body="\n\n".join(lines) or None,
        )
    )
    if progress is not None:
        progress(1, 1)
    return plan
