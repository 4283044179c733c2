"""The one gateway to git: every git command of statedump is a method of `Git`.

GitPython is imported on first use, and only for what it does without a process per call
(reading trees and blobs through one long-lived `cat-file`); every other command runs the git
binary (`runner`). Reading the working tree (render, list, show) needs no git at all, and
`statedump log` needs neither GitPython nor pydantic.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from statedump.core.errors import NotFound, StatedumpError
from statedump.core.git import refs
from statedump.core.git.branch import Branch
from statedump.core.git.errors import failed
from statedump.core.git.fastimport import Stream
from statedump.core.git.feed import Feed
from statedump.core.git.identity import git_date
from statedump.core.git.log import LOG_ARGS, Commit, log_commit, parse_log
from statedump.core.git.objects import CatFile
from statedump.core.git.plumbing import Plumbing
from statedump.core.git.runner import run_git

__all__ = ["Commit", "Git", "find_worktree"]

_FROM_STDIN = ("--pathspec-from-file=-", "--pathspec-file-nul")


def _pathspec(paths: list[str]) -> bytes:
    """`paths` as git reads them with `_FROM_STDIN`: NUL-terminated, no quoting."""
    return b"".join(p.encode() + b"\0" for p in paths)


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ][0-9:]+(Z|[+-]\d{2}:?\d{2})?)?$")


def find_worktree(start: Path) -> Path | None:
    """The top of the git work tree that holds `start`, found without running git."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


class Git(Plumbing, Branch):
    """A git work tree: commit, tag, read files as of any revision, and the plumbing of sync."""

    def __init__(self, root: Path):
        super().__init__(root)
        self._objects = CatFile(root)
        self._commits: set[str] = set()

    @staticmethod
    def init(root: Path) -> Git:
        """Create a repository at `root` (branch `main`) unless one is there."""
        made = Git(root)
        if find_worktree(root) != root:
            made._run("init", "--quiet", "--initial-branch=main")
        return made

    def identity_env(self) -> dict[str, str]:
        """Environment for git commands that write objects: statedump's identity when git has none."""
        return self._env(None)

    def _env(self, when: datetime | None) -> dict[str, str]:
        env = dict(self.identity.env)
        if when is not None:
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = git_date(when)
        return env

    def head(self) -> str | None:
        """The commit HEAD points at, or None in an empty repository."""
        # Read from .git's files when they settle it: no process (see refs.py).
        read = refs.head(self.root / ".git")
        if read != refs.UNKNOWN:
            return read
        found = self._maybe("rev-parse", "-q", "--verify", "HEAD")
        return found.strip() if found else None

    def summary(self, rev: str = "HEAD") -> str:
        """The first line of a commit's message."""
        return self.message(rev).split("\n", 1)[0]

    def commit(self, paths: list[str], message: str, when: datetime | None = None, *, exact: bool = False) -> str:
        """Stage exactly `paths` (added, changed or deleted) and commit only them.

        Committing with a pathspec leaves anything else the user has staged alone. Refused
        while HEAD is detached or git is stopped half-way (`check_committable`). `exact`:
        every path names a file (no folder, no glob), for an import of many: see `_commit_exact`.
        """
        self.check_committable()
        # The paths go through stdin: an import of 100,000 records would not fit in argv.
        names = _pathspec(paths)
        if exact and self.head() is not None:
            self._commit_exact(paths, names, message, when)
        else:
            self._run("add", "--all", *_FROM_STDIN, input=names)
            self._run("commit", "--quiet", "--no-verify", "-m", message, *_FROM_STDIN, env=self._env(when), input=names)
        made = self.head()
        if made is None:
            raise StatedumpError("git made no commit", where=self.root)
        return made

    def _commit_exact(self, paths: list[str], names: bytes, message: str, when: datetime | None) -> None:
        """The commit `git add` + `git commit -- paths` makes, with less of git's work.

        `git add` with a pathspec per file walks the folders matching every name against
        every pathspec, and `git commit -- paths` stages them all again (hashing each file a
        second time, into a temporary index built from HEAD). Here `update-index` stages the
        named files once (hashed, their stat info recorded, so `git status` has nothing to
        look at again) and, when nothing else is staged, a plain `git commit` commits the
        index as it is: HEAD's tree with these paths, as the pathspec commit makes it.
        """
        self._run("update-index", "--add", "--remove", "-z", "--stdin", input=names)
        ours = {p.encode() for p in paths}
        staged = self._run("diff", "--cached", "--name-only", "--no-renames", "-z").split(b"\0")
        if any(p and p not in ours for p in staged):  # what the user staged stays out of the commit
            self._run("commit", "--quiet", "--no-verify", "-m", message, *_FROM_STDIN, env=self._env(when), input=names)
        else:
            self._run("commit", "--quiet", "--no-verify", "-m", message, env=self._env(when))

    def unstage(self, paths: list[str]) -> None:
        """Undo `git add` of `paths` after a failed commit."""
        if self.head() is None:
            self.forget(*paths)
        else:
            self._run("reset", "--quiet", "HEAD", *_FROM_STDIN, input=_pathspec(paths))

    def tag(self, name: str, sha: str, message: str, when: datetime | None = None, *, signer: dict[str, str] | None = None) -> None:
        """An annotated tag `name` on `sha`, by statedump's identity at `when`, or by `signer`
        (the `GIT_COMMITTER_*` variables of the tag's original author)."""
        self._run("tag", "-a", name, "-m", message, sha, env=self._env(when) if signer is None else signer)

    def tags(self, pattern: str) -> list[tuple[str, str, datetime, str]]:
        """Annotated tags matching a glob: (name, commit sha, tag date, message), oldest first."""
        rows = []
        for line in self._lines(
            "for-each-ref",
            "--sort=creatordate",
            "--format=%(refname:short)%00%(*objectname)%(objectname)%00%(creatordate:unix)%00%(contents:subject)",
            f"refs/tags/{pattern}",
        ):
            name, sha, stamp, subject = line.split("\0", 3)
            rows.append((name, sha[:40], datetime.fromtimestamp(int(stamp), UTC), subject))
        return rows

    def resolve(self, rev: str) -> str:
        """The commit sha that `rev` names: a sha, a branch, a tag, `HEAD~2`."""
        import git

        try:
            return str(self._repository.commit(rev).hexsha)
        except (git.BadName, ValueError, git.GitCommandError):
            pass
        if _DATE.match(rev):
            # A date means the state at the end of that day (or at that moment).
            until = rev if "T" in rev or " " in rev else f"{rev} 23:59:59 +0000"
            before = self._text("rev-list", "-1", f"--before={until}", "HEAD")
            if before:
                return before.strip()
            raise NotFound(f"no commit on or before {rev}", where="--at", hint="the store's history starts later")
        raise NotFound(f"no commit named {rev!r}", where="--at", hint="use a commit, a tag from `statedump dumps`, or a date")

    def _tree(self, rev: str, path: str) -> Any | None:
        commit = self._repository.commit(self.resolve(rev))
        try:
            return commit.tree / path
        except KeyError:
            return None

    def tree_files(self, rev: str, prefix: str) -> Iterator[tuple[str, bytes]]:
        """Every file under `prefix` as of `rev`, as (path, bytes)."""
        tree = self._tree(rev, prefix)
        if tree is None:
            return
        if tree.type == "blob":
            yield str(tree.path), tree.data_stream.read()
            return
        for item in tree.traverse():
            if item.type == "blob":
                yield str(item.path), item.data_stream.read()

    def list_dirs(self, rev: str, prefix: str) -> list[str]:
        """Names of the folders directly under `prefix` as of `rev`."""
        tree = self._tree(rev, prefix)
        return [] if tree is None else sorted(t.name for t in tree.trees)

    def file_at(self, rev: str, path: str) -> bytes | None:
        """The bytes of one file as of `rev`, or None when it did not exist there."""
        # A commit's id is resolved once (it names the same tree for ever); any other name
        # (HEAD, a tag, a date) each time, and one that names no commit is NotFound, as before.
        sha = rev if rev in self._commits else self.resolve(rev)
        if sha == rev:
            self._commits.add(rev)
        return self._objects.blob(sha, path)

    def log(
        self, paths: list[str], *, rev: str = "HEAD", limit: int | None = None, since: str | None = None
    ) -> list[tuple[Commit, tuple[str, ...]]]:
        """Commits of `rev` that touch `paths` (git pathspecs, globs allowed), newest first,
        each with the paths it changed among them. `since` excludes that commit and its
        ancestors (`since..rev`). One git call, whatever the history's length."""
        if rev == "HEAD" and since is None and limit is None and (self.root / ".git").is_dir():
            from statedump.core.git.logindex import touching

            found = touching(self.root, self.root / ".git", paths)
            if found is not None:
                return found
        args = [f"-n{int(limit)}"] if limit is not None else []
        args.append(f"{since}..{rev}" if since else rev)
        done = run_git(self.root, *LOG_ARGS, *args, "--", *paths)
        if done.returncode:
            if self.head() is None:
                return []  # no commit yet
            raise failed(LOG_ARGS, done.returncode, done.stderr, self.root)
        try:
            return [
                (log_commit(sha, parents, stamp, message), tuple(names)) for sha, parents, stamp, message, names in parse_log(done.stdout)
            ]
        except ValueError as err:
            raise StatedumpError(f"could not read git's log: {err}", where=self.root) from None

    def dirty(self, paths: list[str]) -> list[str]:
        """Paths under `paths` with uncommitted changes (staged, unstaged or untracked)."""
        return [line[3:] for line in self.status_porcelain(*paths, untracked="all")]

    def diff_names(self, old: str, new: str, *paths: str, added: bool = False) -> list[str]:
        """Paths under `paths` that differ between two commits (only the ones added, with `added`)."""
        only = ["--diff-filter=A"] if added else []
        return self._lines("diff", "--name-only", "--no-renames", *only, old, new, "--", *paths)

    def staged(self) -> list[str]:
        """Paths whose staged content differs from HEAD."""
        return self._lines("diff", "--cached", "--name-only")

    def signers(self) -> tuple[str, str]:
        """`Name <email>` of the author and the committer, as git signs now."""
        return self.identity.author, self.identity.committer

    def feed(self) -> Feed:
        """A fast-import started now, fed its stream while the caller makes it (see feed.py)."""
        return Feed(self.root, self.identity_env())

    def fast_import(self, stream: Stream) -> dict[str, str]:
        """Run one fast-import stream (no ref, index or file of the work tree changes but the
        refs it names); returns mark (`:n`) -> object id of what it wrote."""
        if not stream.parts:
            return {}
        running = self.feed()
        for part in stream.parts:
            running.write(part)
        return running.wait()
