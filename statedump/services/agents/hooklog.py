"""What the hooks leave behind: when each ran last, and one line per failure.

A hook never breaks its agent, so a failure cannot be shown where it happens: it goes to
`.git/statedump/hooks.log`, one line each, which `statedump agent status` and `statedump
doctor` show. When each hook last ran is the modification time of an empty marker file per
agent and event (`.git/statedump/hooks/<agent>.<event>`): touching a file is cheaper than
rewriting a shared JSON file before every shell command, and two hooks at once cannot lose
each other's update.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from datetime import datetime

LOG = "hooks.log"
MARKS = "hooks"
KEEP_BYTES = 256 * 1024
"""The log is cut to its newer half past this size: it is for the last failures, not an archive."""


class LastRun(NamedTuple):
    """One hook's last run."""

    agent: str
    event: str
    at: datetime


def _stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def mark_run(folder: Path, agent: str, event: str) -> None:
    """Note that `agent`'s `event` hook ran now (never raises)."""
    with contextlib.suppress(OSError):
        marks = folder / MARKS
        path = marks / f"{agent}.{event}"
        try:
            os.utime(path)
        except FileNotFoundError:
            marks.mkdir(parents=True, exist_ok=True)
            path.touch()


def log_failure(folder: Path, agent: str, event: str, what: str) -> None:
    """Append one line saying what failed (never raises: the log is the last resort)."""
    line = " ".join(what.split())[:500]
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / LOG
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{_stamp()} {agent} {event}: {line}\n")
        if path.stat().st_size > KEEP_BYTES:
            data = path.read_bytes()
            keep = data[len(data) // 2 :]
            path.write_bytes(keep[keep.find(b"\n") + 1 :])


def last_runs(folder: Path) -> list[LastRun]:
    """Every hook that ran, newest first."""
    from datetime import UTC, datetime

    out = []
    with contextlib.suppress(OSError), os.scandir(folder / MARKS) as entries:
        for entry in entries:
            agent, _, event = entry.name.partition(".")
            if event:
                out.append(LastRun(agent, event, datetime.fromtimestamp(entry.stat().st_mtime, UTC)))
    return sorted(out, key=lambda r: r.at, reverse=True)


def failures(folder: Path, limit: int = 5) -> list[str]:
    """The last `limit` lines of the hook log, oldest first."""
    try:
        lines = (folder / LOG).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    return lines[-limit:]


def clear(folder: Path) -> int:
    """Empty the hook log (after `statedump doctor --repair` has shown it); returns the lines it held."""
    try:
        lines = len((folder / LOG).read_text(encoding="utf-8", errors="replace").splitlines())
        (folder / LOG).unlink()
    except OSError:
        return 0
    return lines


def doctor_lines(folder: Path, repair: bool) -> list[tuple[str, str, str]]:
    """What `statedump doctor` says about the hook log: (kind, where, action) for each of the last
    failures, the log emptied with `repair`."""
    last = failures(folder)
    if not last:
        return []
    out = [("agent hook failed", f".git/statedump/{LOG}", line) for line in last]
    if repair:
        clear(folder)
    action = "cleared" if repair else "would clear (`statedump agent status` shows them too)"
    out.append(("agent hook log", f".git/statedump/{LOG}", action))
    return out
