"""A systemd unit file: one command record holding the unit verbatim (form `systemd`), its
`Description=` as the purpose, and the flags of `ExecStart=` and the `Environment=` values
read out so that decisions can be checked against them."""

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

_SECTION = re.compile(r"^\s*\[[A-Za-z][A-Za-z0-9 -]*\]\s*$", re.M)
_DESCRIPTION = re.compile(r"^\s*Description\s*=\s*(.+?)\s*$", re.M)


def read(path: Path, progress: Progress | None = None) -> ImportPlan:
    """Read a unit file into a plan with one command record."""
    text = read_text(path, "systemd unit")
    if not _SECTION.search(text) or "ExecStart" not in text:
        raise StatedumpError("not a systemd unit: no [Section] header or no ExecStart= line", where=path, hint="name a .service file")
    plan = ImportPlan("systemd", path)
    parsed = parse_command(text, "systemd")
    described = _DESCRIPTION.search(text)
    purpose = described.group(1) if described else None
    program = program_name(parsed) or "service"
    body = describe(parsed)
    plan.add(
        Command(
            id=slugify(path.name),
            title=f"systemd unit {path.name}: {program}"[:300],
            form="systemd",
            text=text.rstrip("\n") + "\n",
            purpose=purpose,
            source=path.name,
            tags=["systemd"],
            body=body,
        )
    )
    if progress is not None:
        progress(1, 1)
    return plan
