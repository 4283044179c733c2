"""Finding and repairing what a crash can leave in a store.

A writer that dies (kill -9, power loss) between writing files and committing them
can leave: a stray temp file, record files written but not committed (a single add or
half an import), a git lock file. A sync killed while it moved the branch can leave files
of the work tree out of line with HEAD. statedump's own lock is an flock, which the kernel
releases with the process, so it is never stale. An unfinished write is undone: each file
goes back to what it held before the write (an uncommitted hand edit included), since the
user was never told the write succeeded. What git itself left (a lock, a rebase or merge
stopped half-way, a detached HEAD) is reported; a lock no process holds is removed.

Everything here reads the repository as untrusted: journals that are not regular files or
name paths outside `sessions/` are refused, and git runs without the programs a
repository's config can name (see `core/git/runner.py`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from statedump.core.errors import StatedumpError
from statedump.core.git.errors import CommandFailed
from statedump.core.layout import SESSIONS, RecordRef
from statedump.core.store.files import write_atomic
from statedump.core.store.journal import read_journal
from statedump.core.store.store import Store
from statedump.services.sync.replay import read_journal as read_sync_journal
from statedump.services.sync.scratch import JOURNAL as SYNC_JOURNAL
from statedump.services.sync.scratch import LEFTOVERS, OLD_LEFTOVERS, SCRATCH

OWN_LOCK = "statedump.lock"
"""statedump's flock: never stale (the kernel drops it with its holder), never removed."""
STALE_AFTER = 60.0
"""Seconds after which a git lock file nobody holds open is taken as left by a crash."""
_SKIP = {"objects", SCRATCH, "hooks", "info", "logs"}
"""Folders of `.git` where git keeps no lock files that block a command."""


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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def git_locks(git_dir: Path) -> list[Path]:
    """Every git lock file in the repository: `index.lock`, `HEAD.lock`, `config.lock`,
    `packed-refs.lock`, `REBASE_HEAD.lock`, `refs/heads/<branch>.lock`, … (statedump's own
    flock aside)."""
    found = []
    for top, dirs, files in os.walk(git_dir):
        if Path(top) == git_dir:
            dirs[:] = [d for d in dirs if d not in _SKIP]
        found += [Path(top) / f for f in files if f.endswith(".lock") and not (Path(top) == git_dir and f == OWN_LOCK)]
    return sorted(found)


def _inside(store: Store, rel: str, folder: str = SESSIONS) -> bool:
    """True when `rel` is a file whose folder is really inside the store's `folder` (not
    through a symlink that leaves it; "" is the whole work tree)."""
    base = (store.root / folder).resolve()
    parent = (store.root / rel).parent.resolve()
    return parent == base or base in parent.parents


def _restore(store: Store, contents: dict[str, bytes | None]) -> None:
    """Put each file back as `contents` says (None: it did not exist) and its index entry as HEAD has it."""
    for rel, data in contents.items():
        path = store.root / rel
        if data is None:
            path.unlink(missing_ok=True)
        else:
            write_atomic(path, data)
    if contents:
        store.git.unstage(list(contents))


def _at_head(store: Store, paths: list[str]) -> dict[str, bytes | None]:
    head = store.git.head()
    return {rel: store.git.file_at(head, rel) if head else None for rel in paths}


def examine(store: Store, repair: bool = False) -> list[Repair]:
    """Everything a crash left behind; with `repair`, fix each (under the store lock)."""
    with store.lock():
        return _examine(store, repair)


def _locks(store: Store, repair: bool, found: list[Repair]) -> bool:
    """Report (and remove) stale git locks; True when a live git holds one."""
    busy = False
    for lock in git_locks(store.git.git_dir):
        where = store.rel(lock) if lock.is_relative_to(store.root) else str(lock)
        try:
            old = time.time() - lock.lstat().st_mtime > STALE_AFTER
        except OSError:
            continue
        if not _held_open(lock) and (Path("/proc").is_dir() or old):
            found.append(Repair("stale git lock", where, "removed" if repair else "would remove"))
            if repair:
                lock.unlink(missing_ok=True)
        else:
            # A git process (perhaps one still dying after a crash) holds it: nothing that
            # needs the index can be repaired until it is gone.
            busy = True
            found.append(Repair("git is running", where, "left alone: run `statedump doctor` again when it has finished"))
    return busy


def _missing_from_work_tree(store: Store, rev: str) -> list[str]:
    try:
        committed = store.git.ls_tree(rev, SESSIONS)
    except CommandFailed:
        return []
    return [rel for rel in committed if RecordRef.parse(rel) and not os.path.lexists(store.root / rel)]


def _stopped(store: Store, found: list[Repair]) -> None:
    """A rebase, merge or cherry-pick stopped half-way, or a detached HEAD: git's to finish,
    reported with what the work tree is missing and the commands that settle it."""
    git = store.git
    what = git.stopped()
    head = (git.git_dir / "HEAD").read_bytes() if (git.git_dir / "HEAD").is_file() else b""
    if what is None and (not head or head.startswith(b"ref: ")):
        return
    branch = ""
    for name in ("rebase-merge/head-name", "rebase-apply/head-name"):
        if (git.git_dir / name).is_file():
            branch = (git.git_dir / name).read_text(errors="replace").strip().removeprefix("refs/heads/")
    missing = _missing_from_work_tree(store, f"refs/heads/{branch}") if branch else []
    lost = f"; {len(missing)} record(s) committed on {branch} are not in the work tree (e.g. {missing[0]})" if missing else ""
    if what == "a rebase":
        advice = (
            "left alone: finish it with `git rebase --continue`, or go back with `git rebase --abort` "
            "(commits made while HEAD was detached are then lost: `git branch keep HEAD` first keeps them)"
        )
    elif what is not None:
        verb = what.removeprefix("a ")
        advice = f"left alone: finish it with `git {verb} --continue`, or abort it with `git {verb} --abort`"
    else:
        advice = "left alone: statedump commits only on a branch; `git switch main` (or your branch) goes back to it"
    found.append(Repair(f"git is stopped in the middle of {what}{lost}" if what else "HEAD is detached", ".git", advice))


def _sync_journal(store: Store, repair: bool, busy: bool, found: list[Repair]) -> set[str]:
    """A sync killed while it moved the branch and the work tree: the files it was moving are
    put back as HEAD has them (HEAD is where the sync started or where it was going; either
    is whole). Returns the paths it covers."""
    git = store.git
    path = git.git_dir / SCRATCH / SYNC_JOURNAL
    moved = read_sync_journal(git)
    if moved is None:
        return set()
    where = store.rel(path)
    old, new = moved
    try:
        paths = git.diff_names(old, new) if old else []
    except CommandFailed:
        old = ""
        paths = []
    if not old:
        found.append(Repair("damaged sync journal", where, "removed" if repair else "would remove"))
        if repair:
            path.unlink(missing_ok=True)
        return set()
    paths = [p for p in paths if _inside(store, p, "")]
    differ = sorted({line[3:].strip().strip('"').split(" -> ")[-1] for line in git.status_porcelain(*paths, untracked="all")} & set(paths))
    if not differ:
        found.append(Repair("finished sync left its journal", where, "removed" if repair else "would remove"))
    elif busy:
        found.append(Repair(f"interrupted sync: {len(differ)} file(s) differ from HEAD", where, "left alone while git is running"))
        return set(differ)
    else:
        sample = ", ".join(differ[:3]) + (" …" if len(differ) > 3 else "")
        action = "restored from HEAD" if repair else "would restore from HEAD (`statedump doctor --repair`)"
        found.append(Repair(f"interrupted sync: {len(differ)} file(s) differ from HEAD: {sample}", where, action))
        if repair:
            _restore(store, _at_head(store, differ))
    if repair:
        path.unlink(missing_ok=True)
    return set(differ)


def _write_journal(store: Store, repair: bool, busy: bool, found: list[Repair]) -> set[str]:
    """An unfinished write: each file back to what it held before the write."""
    path = store.journal_path
    where = ".git/" + path.name
    try:
        entry = read_journal(path)
    except (ValueError, OSError, UnicodeError) as err:
        found.append(
            Repair(f"journal refused ({err})", where, "removed, nothing restored" if repair else "would remove, restoring nothing")
        )
        if repair:
            path.unlink(missing_ok=True)
        return set()
    if entry is None:
        return set()
    head = store.git.head()
    paths = entry.paths
    if head is not None and head != entry.head and store.git.summary() == entry.subject:
        found.append(Repair("finished write left its journal", where, "removed" if repair else "would remove"))
    else:
        what = f"unfinished write of {len(paths)} file(s): {', '.join(paths[:3])}{' …' if len(paths) > 3 else ''}"
        outside = [p for p in paths if not _inside(store, p)]
        target = "what the files held before it" if entry.before is not None else "HEAD"
        if busy:
            found.append(Repair(what, where, "left alone while git is running"))
            return set(paths)
        if outside:
            found.append(Repair(f"journal refused (it names {outside[0]!r}, outside sessions/)", where, "left alone"))
            return set()
        found.append(Repair(what, where, f"rolled back to {target}" if repair else f"would roll back to {target}"))
        if repair:
            _restore(store, entry.before if entry.before is not None else _at_head(store, paths))
    if repair:
        path.unlink(missing_ok=True)
    return set(paths)


def _scratch(store: Store, repair: bool, found: list[Repair]) -> None:
    """Temp files of `.git/statedump/` whose writer is gone, sync's scratch indexes (no sync
    runs while doctor holds the lock), and what earlier versions kept in `.git`."""
    git_dir = store.git.git_dir
    folder = git_dir / SCRATCH
    leftovers = [folder / n for n in LEFTOVERS] + [git_dir / n for n in OLD_LEFTOVERS]
    # Temp files of write_atomic: `.<name>.<pid>.tmp` (the caches, sync's journal, and the
    # write journal beside `.git/statedump-journal.json`), left when their writer was killed.
    temps = [*folder.glob(".*.tmp")] if folder.is_dir() else []
    temps += git_dir.glob(f".{store.journal_path.name}.*.tmp")
    for tmp in temps:
        pid = tmp.name.rsplit(".", 2)[-2]
        if not (pid.isdigit() and _alive(int(pid))):
            leftovers.append(tmp)
    for left in sorted(p for p in leftovers if os.path.lexists(p)):
        found.append(Repair("leftover temp file", store.rel(left), "removed" if repair else "would remove"))
        if repair:
            left.unlink(missing_ok=True)


def _examine(store: Store, repair: bool) -> list[Repair]:
    found: list[Repair] = []
    busy = _locks(store, repair, found)
    _stopped(store, found)
    journaled = _write_journal(store, repair, busy, found)
    journaled |= _sync_journal(store, repair, busy, found)
    _scratch(store, repair, found)

    sessions = store.root / SESSIONS
    for tmp in sorted(sessions.rglob(".*.tmp")) if sessions.is_dir() else []:
        found.append(Repair("stray temp file", store.rel(tmp), "removed" if repair else "would remove"))
        if repair:
            tmp.unlink(missing_ok=True)

    try:
        status = store.git.status_porcelain(SESSIONS, untracked="all")
    except CommandFailed as err:
        raise StatedumpError(f"git could not say what changed: {err.last}", where=store.root) from None
    for line in status:
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
