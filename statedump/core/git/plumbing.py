"""Objects, trees and the index, for the commands that rewrite history (sync)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from statedump.core.git.runner import Runner

_WHO = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE")


class ScratchIndex:
    """An index file of its own, beside the user's: trees are built in it without touching
    the work tree or what the user has staged."""

    def __init__(self, runner: Runner, path: Path):
        self._runner = runner
        self._env = {"GIT_INDEX_FILE": str(path)}

    def read_tree(self, rev: str) -> None:
        self._runner._run("read-tree", rev, env=self._env)

    def remove(self, path: str) -> None:
        self._runner._run("update-index", "--force-remove", "--", path, env=self._env)

    def merge(self, base: str, ours: str, theirs: str) -> None:
        """A three-way merge of trees into this (empty) index that merges no file's lines: a
        file changed differently on both sides is left unmerged (see `unmerged`)."""
        self._runner._run("read-tree", "-m", "-i", "--aggressive", base, ours, theirs, env=self._env)

    def unmerged(self) -> dict[str, dict[int, str]]:
        """path -> {stage: blob sha} of every path left unmerged."""
        stages: dict[str, dict[int, str]] = {}
        for line in self._runner._lines("ls-files", "-u", env=self._env):
            meta, path = line.split("\t", 1)
            _, sha, stage = meta.split()
            stages.setdefault(path, {})[int(stage)] = sha
        return stages

    def add_blob(self, path: str, sha: str) -> None:
        self._runner._run("update-index", "--add", "--cacheinfo", f"100644,{sha},{path}", env=self._env)

    def write_tree(self) -> str:
        return self._runner._text("write-tree", env=self._env).strip()


class Plumbing(Runner):
    """Reading and writing git's objects and index directly."""

    def ls_tree(self, rev: str, prefix: str) -> dict[str, str]:
        """path -> blob sha of every file under `prefix` as of `rev`."""
        out = {}
        for line in self._lines("ls-tree", "-r", "--full-tree", rev, "--", prefix):
            meta, path = line.split("\t", 1)
            out[path] = meta.split()[2]
        return out

    def blob(self, sha: str) -> bytes:
        """The bytes of a blob (through GitPython's long-lived `cat-file`: no process per blob)."""
        data: bytes = self._repository.odb.stream(bytes.fromhex(sha)).read()
        return data

    def store_blob(self, data: bytes) -> str:
        """Write `data` as a blob into the object database; returns its sha."""
        from gitdb import IStream  # type: ignore[import-untyped]

        return bytes(self._repository.odb.store(IStream(b"blob", len(data), io.BytesIO(data))).binsha).hex()

    @contextmanager
    def scratch_index(self, name: str) -> Iterator[ScratchIndex]:
        """A `ScratchIndex` at `.git/<name>`, removed afterwards."""
        path = self.git_dir / name
        try:
            yield ScratchIndex(self, path)
        finally:
            path.unlink(missing_ok=True)

    def commit_tree(self, tree: str, parent: str, message: str, env: dict[str, str]) -> str:
        """A commit of `tree` on `parent`, signed as `env` says (see `signature_env`)."""
        return self._text("commit-tree", tree, "-p", parent, "-m", message, env=env).strip()

    def signature_env(self, sha: str) -> dict[str, str]:
        """The author and committer of `sha` (names, emails, raw dates) as git's environment
        variables, so that a rewritten commit keeps them."""
        who = self._text("log", "-1", "--format=%an%x00%ae%x00%ad%x00%cn%x00%ce%x00%cd", "--date=raw", sha).split("\0")
        return dict(zip(_WHO, who, strict=True))

    def message(self, sha: str) -> str:
        """The full message of a commit."""
        return self._text("log", "-1", "--format=%B", sha)

    def commits_between(self, base: str, tip: str) -> list[str]:
        """The commits of `base..tip`, oldest first (parents before children)."""
        return self._lines("rev-list", "--reverse", "--topo-order", f"{base}..{tip}")

    def merges_between(self, base: str, tip: str) -> list[str]:
        """The merge commits of `base..tip`."""
        return self._lines("rev-list", "--min-parents=2", f"{base}..{tip}")

    def adders(self, base: str, tip: str, path: str) -> list[str]:
        """The commits of `base..tip` that added `path`, newest first."""
        return self._lines("log", "--format=%H", "--diff-filter=A", f"{base}..{tip}", "--", path)

    def unmerged(self) -> dict[str, dict[int, str]]:
        """path -> {stage: blob sha} of every path the index holds unmerged."""
        stages: dict[str, dict[int, str]] = {}
        for line in self._lines("ls-files", "-u"):
            meta, path = line.split("\t", 1)
            _, sha, stage = meta.split()
            stages.setdefault(path, {})[int(stage)] = sha
        return stages

    def tracked(self, *paths: str) -> list[str]:
        """The files under `paths` that the index holds."""
        return self._lines("ls-files", "--", *paths)

    def add(self, *paths: str) -> None:
        """Stage `paths` as they are in the work tree."""
        self._run("add", "--", *paths)

    def forget(self, *paths: str) -> None:
        """Drop `paths` from the index (the work tree's files are the caller's)."""
        names = b"".join(p.encode() + b"\0" for p in paths)  # stdin, not argv: any number of paths
        self._run("rm", "--quiet", "--cached", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul", input=names)
