"""An index of which commits changed which record file, so a record's history is a lookup.

`git log -- <file>` has to walk every commit of the branch, whatever the file: in a long
history that is most of `statedump log` and a good part of `statedump why` (git's own
commit-graph with changed-path Bloom filters was measured against this index and is slower:
docs/performance.md has both).
This index keeps, for each commit of the branch, its metadata and the files it changed,
in an SQLite database inside `.git/statedump/`. It is brought up to date on each use:

- the commit HEAD names is asked from git (one `rev-parse`);
- when the index was made at an ancestor of HEAD, only the new commits are read
  (`git log old..HEAD`), so a write costs the next read little;
- when history was rewritten (amend, rebase, reset to another line) it is rebuilt;
- it answers only for plain file paths on a linear history (statedump's own writes and
  `sync` keep history linear). For globs, folders, ranges, a history with merges (where
  git's history simplification decides what `git log -- <path>` shows), and a shallow
  clone, grafts or replace refs (which change the history under the same HEAD), the
  caller asks git itself.

Nothing here is needed for correctness: deleting the file only costs one rebuild, and any
error reading it means git is asked instead.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from statedump.core.git.log import LOG_ARGS, Commit, log_commit, parse_log
from statedump.core.git.runner import run_git

VERSION = "2"
"""Bumped when what is stored changes (2: the root commit's files whatever `log.showRoot` says)."""
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS commits (n INTEGER PRIMARY KEY, sha TEXT NOT NULL UNIQUE, parents TEXT NOT NULL,
    at INTEGER NOT NULL, message TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS touches (path TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (path, n)) WITHOUT ROWID;
"""

Row = tuple[Commit, tuple[str, ...]]


def answerable(paths: list[str]) -> bool:
    """True for pathspecs the index can answer exactly: plain record or session file paths."""
    return bool(paths) and all(p.endswith(".yaml") and not p.startswith(":") and not any(c in p for c in "*?[\\") for p in paths)


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(exist_ok=True)
    db = sqlite3.connect(path, timeout=10, isolation_level=None)
    db.executescript(_SCHEMA)
    return db


def _meta(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else None


def _fill(db: sqlite3.Connection, out: bytes, head: str) -> None:
    """Append the commits of a `git log` output (newest first) and move the index to `head`."""
    top = db.execute("SELECT COALESCE(MAX(n), 0) FROM commits").fetchone()[0]
    linear = _meta(db, "linear") != "0"
    commits = parse_log(out)
    for offset, (sha, parents, stamp, message, names) in enumerate(reversed(commits), start=1):
        n = top + offset
        linear = linear and len(parents.split()) <= 1
        db.execute("INSERT INTO commits VALUES (?, ?, ?, ?, ?)", (n, sha, parents, stamp, message))
        db.executemany("INSERT OR IGNORE INTO touches VALUES (?, ?)", [(name, n) for name in names])
    db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [("version", VERSION), ("head", head), ("linear", "1" if linear else "0")])


def _refresh(db: sqlite3.Connection, root: Path, head: str) -> bool:
    """Bring the index to `head`, inside a write transaction the caller ends (so that what it
    reads next is this state, whatever other processes do); False when it cannot answer."""
    db.execute("BEGIN IMMEDIATE")  # one writer at a time; a second one finds the work done
    known = _meta(db, "head") if _meta(db, "version") == VERSION else None
    if known != head:
        if known is not None and run_git(root, "merge-base", "--is-ancestor", known, head).returncode == 0:
            log = run_git(root, *LOG_ARGS, f"{known}..{head}")
        else:
            for table in ("touches", "commits", "meta"):  # not executescript: it would end the transaction
                db.execute(f"DELETE FROM {table}")  # noqa: S608 - fixed table names
            log = run_git(root, *LOG_ARGS, head)
        if log.returncode:
            return False
        _fill(db, log.stdout, head)
    return _meta(db, "linear") == "1"


def _plain_history(git_dir: Path) -> bool:
    """False when something besides the commits decides what `git log` shows: a shallow clone
    (deepening it changes the history under the same HEAD), grafts, or replace refs."""
    if (git_dir / "shallow").exists() or (git_dir / "info" / "grafts").exists() or os.environ.get("GIT_REPLACE_REF_BASE"):
        return False
    replace = git_dir / "refs" / "replace"
    if replace.is_dir() and any(replace.iterdir()):
        return False
    packed = git_dir / "packed-refs"
    return not (packed.is_file() and b" refs/replace/" in packed.read_bytes())


def touching(root: Path, git_dir: Path, paths: list[str]) -> list[Row] | None:
    """The commits of HEAD that changed any of `paths`, newest first, each with the ones it
    changed among them, as `git log -- <paths>` lists them; None when the index cannot say
    (not plain file paths, a history with merges, no HEAD, an index that cannot be written)."""
    if not answerable(paths):
        return None
    head_run = run_git(root, "rev-parse", "-q", "--verify", "HEAD")
    if head_run.returncode:
        return None
    head = head_run.stdout.decode().strip()
    try:
        if not _plain_history(git_dir):
            return None
        with contextlib.closing(_connect(git_dir / "statedump" / "log.sqlite")) as db:
            try:
                if not _refresh(db, root, head):
                    return None
                marks = ",".join("?" * len(paths))
                found = db.execute(
                    f"SELECT c.n, c.sha, c.parents, c.at, c.message, t.path FROM touches t JOIN commits c ON c.n = t.n "  # noqa: S608 - only placeholders are formatted in
                    f"WHERE t.path IN ({marks}) ORDER BY c.n DESC, t.path",
                    paths,
                ).fetchall()
                db.execute("COMMIT")
            finally:
                if db.in_transaction:
                    db.execute("ROLLBACK")
    except (sqlite3.Error, OSError, ValueError):
        return None
    rows: list[Row] = []
    last = None
    for n, sha, parents, stamp, message, path in found:
        if n != last:
            rows.append((log_commit(sha, parents, stamp, message), ()))
            last = n
        rows[-1] = (rows[-1][0], (*rows[-1][1], path))
    return rows
