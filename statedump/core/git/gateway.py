"""The git side of the store, through GitPython.

GitPython is imported on first use: reading the working tree (render, list, show)
needs no git at all, and its import costs start-up time.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from statedump.core.errors import NotFound, StatedumpError

if TYPE_CHECKING:
    import git

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ][0-9:]+(Z|[+-]\d{2}:?\d{2})?)?$")
FALLBACK_NAME = "statedump"
FALLBACK_EMAIL = "statedump@localhost"


def find_worktree(start: Path) -> Path | None:
    """The top of the git work tree that holds `start`, found without running git."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _git_date(when: datetime) -> str:
    return f"{int(when.timestamp())} +0000"


@dataclass(frozen=True)
class Commit:
    """One commit as the history commands need it."""

    sha: str
    date: datetime
    subject: str
    trailers: dict[str, str]
    parents: tuple[str, ...]


def parse_trailers(message: str) -> dict[str, str]:
    """Trailers of the last paragraph of a commit message (`Key: value` lines)."""
    last = message.strip().split("\n\n")[-1]
    out: dict[str, str] = {}
    for line in last.splitlines():
        key, sep, value = line.partition(": ")
        if sep and key.replace("-", "").isalnum():
            out[key] = value.strip()
    return out


LOG_FORMAT = "--format=%x00%x1e%H%x00%P%x00%at%x00%B%x00"
"""Each commit of a `git log` opens with NUL and a record separator: a commit message cannot
hold a NUL, so no subject or body (not even one with a stray \\x1e) can be read as a new commit."""

LOG_ARGS = ("-c", "log.showRoot=true", "log", "--no-color", "--no-renames", "--name-only", LOG_FORMAT)
"""`git` arguments for a log with the paths each commit changed. The root commit lists its files
whatever the user's `log.showRoot`; a move lists both paths, as a one-path pathspec sees it."""

_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def parse_log(out: bytes) -> list[tuple[str, str, int, str, list[str]]]:
    """(sha, parents, author time, message, changed paths) per commit of a `LOG_ARGS` output, newest first.

    Raises ValueError on output that is not in that shape.
    """
    rows = []
    for chunk in out.decode("utf-8", errors="replace").split("\x00\x1e")[1:]:
        sha, parents, stamp, message, names = chunk.split("\x00", 4)
        if not _SHA.fullmatch(sha):
            raise ValueError(f"not a commit id: {sha[:50]!r}")
        rows.append((sha, parents, int(stamp), message, [n for n in names.splitlines() if n.strip()]))
    return rows


def run_git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """The git binary run in `root` for a read that must not wait on GitPython's import: never
    prompting, in the C locale, its output and status given back as they are."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False, env=env)


def log_commit(sha: str, parents: str, stamp: int, message: str) -> Commit:
    """A `Commit` from the fields of a log entry."""
    subject = message.strip().split("\n", 1)[0] if message.strip() else ""
    return Commit(sha, datetime.fromtimestamp(stamp, UTC), subject, parse_trailers(message), tuple(parents.split()))


class Git:
    """A git work tree: commit, tag, and read files as of any revision."""

    def __init__(self, root: Path):
        self.root = root
        self._repo: git.Repo | None = None
        self._ident: dict[str, str] | None = None

    @property
    def repo(self) -> git.Repo:
        if self._repo is None:
            import git

            try:
                self._repo = git.Repo(self.root)
            except (git.InvalidGitRepositoryError, git.NoSuchPathError):
                raise StatedumpError("not a git repository", where=self.root, hint="run `statedump init` there first") from None
        return self._repo

    @staticmethod
    def init(root: Path) -> Git:
        """Create a repository at `root` (branch `main`) unless one is there."""
        import git

        if find_worktree(root) != root:
            git.Repo.init(root, initial_branch="main")
        return Git(root)

    @property
    def git_dir(self) -> Path:
        return Path(self.repo.git_dir)

    def _ident_env(self) -> dict[str, str]:
        # A fresh machine (or CI) may have no user.email; git would then refuse to
        # commit, so statedump signs as itself rather than failing the user's write.
        # git itself is asked, since only it knows every config file and variable.
        if self._ident is None:
            import git

            self._ident = {}
            for role in ("AUTHOR", "COMMITTER"):
                try:
                    self.repo.git.var(f"GIT_{role}_IDENT")
                except git.GitCommandError:
                    self._ident[f"GIT_{role}_NAME"] = os.environ.get(f"GIT_{role}_NAME") or FALLBACK_NAME
                    self._ident[f"GIT_{role}_EMAIL"] = os.environ.get(f"GIT_{role}_EMAIL") or FALLBACK_EMAIL
        return dict(self._ident)

    def identity_env(self) -> dict[str, str]:
        """Environment for git commands that write objects: statedump's identity when git has none."""
        return self._env(None)

    def _env(self, when: datetime | None) -> dict[str, str]:
        env = self._ident_env()
        if when is not None:
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = _git_date(when)
        return env

    def head(self) -> str | None:
        """The commit HEAD points at, or None in an empty repository."""
        try:
            return str(self.repo.head.commit.hexsha)
        except ValueError:
            return None

    def commit(self, paths: list[str], message: str, when: datetime | None = None) -> str:
        """Stage exactly `paths` (added, changed or deleted) and commit only them.

        Committing with a pathspec leaves anything else the user has staged alone.
        """
        env = self._env(when)
        self.repo.git.add("--all", "--", *paths)
        self.repo.git.commit("--quiet", "--no-verify", "-m", message, "--", *paths, env=env)
        return str(self.repo.head.commit.hexsha)

    def unstage(self, paths: list[str]) -> None:
        """Undo `git add` of `paths` after a failed commit."""
        if self.head() is None:
            self.repo.git.rm("--cached", "--quiet", "--ignore-unmatch", "--", *paths)
        else:
            self.repo.git.reset("--quiet", "HEAD", "--", *paths)

    def tag(self, name: str, sha: str, message: str, when: datetime | None = None) -> None:
        """An annotated tag `name` on `sha`."""
        self.repo.git.tag("-a", name, "-m", message, sha, env=self._env(when))

    def tags(self, pattern: str) -> list[tuple[str, str, datetime, str]]:
        """Annotated tags matching a glob: (name, commit sha, tag date, message), oldest first."""
        out = self.repo.git.for_each_ref(
            "--sort=creatordate",
            "--format=%(refname:short)%00%(*objectname)%(objectname)%00%(creatordate:unix)%00%(contents:subject)",
            f"refs/tags/{pattern}",
        )
        rows = []
        for line in out.splitlines():
            name, sha, stamp, subject = line.split("\0", 3)
            rows.append((name, sha[:40], datetime.fromtimestamp(int(stamp), UTC), subject))
        return rows

    def resolve(self, rev: str) -> str:
        """The commit sha that `rev` names: a sha, a branch, a tag, `HEAD~2`."""
        import git

        try:
            return str(self.repo.commit(rev).hexsha)
        except (git.BadName, ValueError, git.GitCommandError):
            pass
        if _DATE.match(rev):
            # A date means the state at the end of that day (or at that moment).
            until = rev if "T" in rev or " " in rev else f"{rev} 23:59:59 +0000"
            found = self.repo.git.rev_list("-1", f"--before={until}", "HEAD")
            if found:
                return str(found.strip())
            raise NotFound(f"no commit on or before {rev}", where="--at", hint="the store's history starts later")
        raise NotFound(f"no commit named {rev!r}", where="--at", hint="use a commit, a tag from `statedump dumps`, or a date")

    def tree_files(self, rev: str, prefix: str) -> Iterator[tuple[str, bytes]]:
        """Every file under `prefix` as of `rev`, as (path, bytes)."""
        commit = self.repo.commit(self.resolve(rev))
        try:
            tree: Any = commit.tree / prefix
        except KeyError:
            return
        if tree.type == "blob":
            yield str(tree.path), tree.data_stream.read()
            return
        for item in tree.traverse():
            if item.type == "blob":
                yield str(item.path), item.data_stream.read()

    def list_dirs(self, rev: str, prefix: str) -> list[str]:
        """Names of the folders directly under `prefix` as of `rev`."""
        commit = self.repo.commit(self.resolve(rev))
        try:
            tree: Any = commit.tree / prefix
        except KeyError:
            return []
        return sorted(t.name for t in tree.trees)

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
        # The git binary is run directly here, as GitPython's `repo.git.log` would run it:
        # `statedump log` is a git log and little else, and importing GitPython would be a
        # third of its time (its target is 1.5x a bare `git log -- <file>`).
        done = run_git(self.root, *LOG_ARGS, *args, "--", *paths)
        if done.returncode:
            if run_git(self.root, "rev-parse", "-q", "--verify", "HEAD").returncode:
                return []  # no commit yet
            raise StatedumpError(f"git log failed: {done.stderr.decode(errors='replace').strip()}", where=self.root)
        try:
            return [
                (log_commit(sha, parents, stamp, message), tuple(names)) for sha, parents, stamp, message, names in parse_log(done.stdout)
            ]
        except ValueError as err:
            raise StatedumpError(f"could not read git's log: {err}", where=self.root) from None

    def is_ancestor(self, older: str, newer: str) -> bool:
        """True when `older` is `newer` or one of its ancestors."""
        import git

        try:
            self.repo.git.merge_base("--is-ancestor", older, newer)
        except git.GitCommandError:
            return False
        return True

    def dirty(self, paths: list[str]) -> list[str]:
        """Paths under `paths` with uncommitted changes (staged, unstaged or untracked)."""
        out = self.repo.git.status("--porcelain", "--untracked-files=all", "--", *paths)
        return [line[3:] for line in out.splitlines() if line.strip()]

    def file_at(self, rev: str, path: str) -> bytes | None:
        """The bytes of one file as of `rev`, or None when it did not exist there."""
        commit = self.repo.commit(self.resolve(rev))
        try:
            blob: Any = commit.tree / path
        except KeyError:
            return None
        if blob.type != "blob":
            return None
        data: bytes = blob.data_stream.read()
        return data
