"""A shell script or a file of command lines: one command record per block of lines.

Blocks are separated by blank lines. A block of comments names and explains the block
after it; a block of only `export VAR=value` lines is environment, kept in the `env` field
of every command after it (that is the environment they run with, not written in their
own text). The flags and environment of each command are read out into its body.
"""

from __future__ import annotations

import re
from pathlib import Path

from statedump.core.errors import StatedumpError
from statedump.models import Command
from statedump.models.ids import slugify
from statedump.services.flags import parse_command
from statedump.services.ingest.commandinfo import describe, program_name
from statedump.services.ingest.jsonl import Progress, read_text
from statedump.services.ingest.plan import ImportPlan

_EXPORT = re.compile(r"^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


def _blocks(text: str) -> list[list[str]]:
    blocks: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.startswith("#!") or re.match(r"^\s*set\s+-[euxo]", line):
            continue
        if not line.strip():
            if blocks[-1] and not blocks[-1][-1].rstrip().endswith("\\"):
                blocks.append([])
            continue
        blocks[-1].append(line.rstrip())
    return [b for b in blocks if b]


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def read(path: Path, progress: Progress | None = None) -> ImportPlan:
    """Read a shell script into a plan of command records."""
    text = read_text(path, "shell script")
    plan = ImportPlan("shell", path)
    env: dict[str, str] = {}
    comment: list[str] = []
    commands: list[tuple[list[str], list[str], dict[str, str]]] = []
    for block in _blocks(text):
        if all(line.lstrip().startswith("#") for line in block):
            comment = [line.lstrip("# ").rstrip() for line in block]
            continue
        if all(_EXPORT.match(line) or line.lstrip().startswith("#") for line in block):
            for line in block:
                if m := _EXPORT.match(line):
                    env[m.group(1)] = _unquote(m.group(2))
            continue
        lead = []
        while block and block[0].lstrip().startswith("#"):
            lead.append(block.pop(0).lstrip("# ").rstrip())
        commands.append((comment + lead, block, dict(env)))
        comment = []
    if not commands:
        raise StatedumpError("no command found (only comments, blank lines or exports)", where=path, hint="name a script with commands")
    stem = slugify(path.stem or path.name)
    for index, (notes, lines, block_env) in enumerate(commands, start=1):
        body_text = "\n".join(lines)
        parsed = parse_command(body_text, "shell", block_env)
        program = program_name(parsed) or lines[0].split()[0]
        title = notes[0] if notes else f"{program} ({path.name})"
        purpose = " ".join(notes[1:]) if len(notes) > 1 else None
        plan.add(
            Command(
                id=stem if len(commands) == 1 else f"{stem[:56]}-{index}",
                title=title[:300],
                form="shell",
                text=body_text,
                env=block_env,
                purpose=purpose or None,
                source=f"{path.name}:{index}",
                tags=["shell"],
                body=describe(parsed, exclude_env=set(block_env)),
            )
        )
    if progress is not None:
        progress(1, 1)
    return plan
