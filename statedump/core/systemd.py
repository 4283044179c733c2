"""The one place statedump starts a process that is not git: `systemctl cat`, for
`statedump drift --unit NAME`. Services never start processes themselves (as git goes
through `core.git`), so what can fail here fails as one `BadInput` line."""

from __future__ import annotations

import shutil
import subprocess

from statedump.core.errors import BadInput

TIMEOUT = 10.0
"""Seconds `systemctl cat` may take: it reads files, so longer means a hung systemd."""


def systemctl_cat(name: str) -> str:
    """The unit `name` as systemd sees it: its file and its drop-ins, each after a `# /path` line."""
    if shutil.which("systemctl") is None:
        raise BadInput(f"cannot read unit {name}: systemctl is not available here", where="--unit", hint="pass the unit file's path")
    try:
        out = subprocess.run(["systemctl", "cat", "--no-pager", "--", name], capture_output=True, text=True, timeout=TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise BadInput(f"cannot read unit {name}: {err}", where="--unit") from None
    if out.returncode != 0 or not out.stdout.strip():
        why = (out.stderr.strip().splitlines() or ["systemctl cat failed"])[0]
        raise BadInput(f"cannot read unit {name}: {why}", where="--unit")
    return out.stdout
