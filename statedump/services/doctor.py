"""Finding and repairing what a crash can leave in a store.

A writer that dies (kill -9, power loss) between writing files and committing them
can leave: a stray temp file, record files written but not committed (a single add or
half an import), a git lock file. statedump's own lock is an flock, which the kernel
releases with the process, so it is never stale. Everything a crash can leave is
either rolled back to HEAD (an unfinished write never happened: the user was never
told it succeeded) or removed.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from statedump.core.layout import SESSIONS, RecordRef
from statedump.core.store.store import Store

GIT_LOCKS = ("index.lock", "HEAD.lock", "config.lock")
STALE_AFTER = 60.0
"""Seconds after which a git lock file nobody holds open is taken as left by a crash."""


@dataclass(frozen=True)
class Repair:
    """One thing found, and what was (or would be) done about it."""

    kind: str
    where: str
    action: str

    def __str__(self) -> str:
        return f"{self.where}: {self.kind} — {self.action}"


def _held_open(path: Path) -> bool:
    """True when a live process has `path` open (Linux /proc; elsewhere assume yes)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    target = str(path.resolve())
    for pid in proc.iterdir():
        if not pid.name.isdigit():
            continue
        try:
            for fd in (pid / "fd").iterdir():
                if os.readlink(fd) == target:
                    return True
        except OSError:
            continue
    return False


def _restore_to_head(store: Store, paths: list[str]) -> None:
    head = store.git.head()
    for rel in paths:
        path = store.root / rel
        data = store.git.file_at(head, rel) if head else None
        if data is None:
            path.unlink(missing_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    store.git.unstage(paths)


def examine(store: Store, repair: bool = False) -> list[Repair]:
    """Everything a crash left behind; with `repair`, fix each (under the store lock)."""
    with store.lock():
        return _examine(store, repair)


def _examine(store: Store, repair: bool) -> list[Repair]:
    found: list[Repair] = []
    git_dir = store.git.git_dir

    busy = False
    for name in GIT_LOCKS:
        lock = git_dir / name
        if not lock.exists():
            continue
        if not _held_open(lock) and (Path("/proc").is_dir() or time.time() - lock.stat().st_mtime > STALE_AFTER):
            found.append(Repair("stale git lock", str(lock.relative_to(store.root)), "removed" if repair else "would remove"))
            if repair:
                lock.unlink(missing_ok=True)
        else:
            # A git process (perhaps one still dying after a crash) holds it: nothing that
            # needs the index can be repaired until it is gone.
            busy = True
            found.append(
                Repair("git is running", str(lock.relative_to(store.root)), "left alone: run `statedump doctor` again when it has finished")
            )

    journal = store.journal_path
    journaled: set[str] = set()
    if journal.exists():
        try:
            entry = json.loads(journal.read_text(encoding="utf-8"))
            paths = [str(p) for p in entry.get("paths", [])]
        except (ValueError, OSError):
            entry, paths = {}, []
        journaled.update(paths)
        head = store.git.head()
        committed = head is not None and head != entry.get("head") and store.git.summary() == entry.get("subject")
        if committed:
            found.append(Repair("finished write left its journal", ".git/" + journal.name, "removed" if repair else "would remove"))
        else:
            what = f"unfinished write of {len(paths)} file(s): {', '.join(paths[:3])}{' …' if len(paths) > 3 else ''}"
            if busy:
                found.append(Repair(what, ".git/" + journal.name, "left alone while git is running"))
            else:
                found.append(Repair(what, ".git/" + journal.name, "rolled back to HEAD" if repair else "would roll back to HEAD"))
                if repair:
                    _restore_to_head(store, paths)
        if repair and not busy:
            journal.unlink(missing_ok=True)

    sessions = store.root / SESSIONS
    for tmp in sorted(sessions.rglob(".*.tmp")) if sessions.is_dir() else []:
        found.append(Repair("stray temp file", store.rel(tmp), "removed" if repair else "would remove"))
        if repair:
            tmp.unlink(missing_ok=True)

    for line in store.git.status_porcelain(SESSIONS, untracked="all"):
        rel = line[3:].strip().strip('"')
        if RecordRef.parse(rel) and rel not in journaled:
            # Hand edits are the user's: reported, never touched. The advice depends on
            # whether git has the file at all (removing a tracked one would delete a record).
            if line.startswith("??"):
                kind, advice = "record file never committed", "left alone: commit it with git (`git add` + `git commit`), or delete it"
            elif "D" in line[:2]:
                kind, advice = (
                    "record file deleted but not committed",
                    f"left alone: commit the deletion, or restore it with `git checkout -- {rel}`",
                )
            else:
                kind, advice = (
                    "record file changed since its last commit",
                    f"left alone: commit the change, or undo it with `git checkout -- {rel}`",
                )
            found.append(Repair(kind, rel, advice))
    from statedump.services.agents.hooklog import doctor_lines

    found += [Repair(*line) for line in doctor_lines(store.git.git_dir / "statedump", repair)]
    return found
