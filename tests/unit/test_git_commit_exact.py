"""`Git.commit(..., exact=True)`, the import's commit: the same commit `git add` + `git commit --
paths` makes, the index's stat info left matching the files, and what the user staged left
out. Real repositories, compared with the pathspec commit made in a twin."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers import git

from statedump.core.git.gateway import Git

WHEN = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
MESSAGE = "import: claude-code t.jsonl (3 added)\n\ntask: add a\n\nStatedump-Session: s1\n"


def _repo(root: Path) -> Git:
    root.mkdir()
    made = Git.init(root)
    (root / "sessions/s1/task").mkdir(parents=True)
    (root / "sessions/s1/task/old.yaml").write_text("old\n")
    (root / "sessions/s1/task/gone.yaml").write_text("gone\n")
    (root / "notes.txt").write_text("notes\n")
    made.commit(["sessions/s1/task/old.yaml", "sessions/s1/task/gone.yaml", "notes.txt"], "start\n", WHEN)
    return made


def _change(root: Path) -> list[str]:
    """Files added, changed and deleted, as an import does them; returns their paths."""
    (root / "sessions/s1/task/old.yaml").write_text("changed\n")
    (root / "sessions/s1/task/gone.yaml").unlink()
    (root / "sessions/s1/note").mkdir()
    for n in range(30):
        (root / f"sessions/s1/note/n{n}.yaml").write_text(f"note {n}\n")
    return ["sessions/s1/task/old.yaml", "sessions/s1/task/gone.yaml", *(f"sessions/s1/note/n{n}.yaml" for n in range(30))]


def _clean(root: Path) -> None:
    # diff-files does not refresh the index: a file whose stat info the index lacks counts as changed.
    assert subprocess.run(["git", "-C", str(root), "diff-files", "--quiet"], check=False).returncode == 0
    assert git(root, "status", "--porcelain") == ""


@pytest.mark.parametrize("user_staged", [False, True])
def test_the_same_commit_as_add_and_a_pathspec_commit(tmp_path: Path, user_staged: bool) -> None:
    made: dict[bool, tuple[str, str]] = {}
    for exact in (False, True):
        root = tmp_path / f"repo-{exact}"
        repo = _repo(root)
        if user_staged:
            (root / "notes.txt").write_text("the user's edit\n")
            git(root, "add", "notes.txt")
        sha = repo.commit(_change(root), MESSAGE, WHEN, exact=exact)
        made[exact] = (git(root, "cat-file", "commit", sha), git(root, "ls-files", "--stage"))
        if user_staged:
            # Still staged, and not in the commit.
            assert git(root, "diff", "--cached", "--name-only").split() == ["notes.txt"]
            assert git(root, "show", "HEAD:notes.txt") == "notes\n"
        else:
            _clean(root)
    assert made[True] == made[False]


def test_a_first_commit_takes_the_pathspec_way(tmp_path: Path) -> None:
    repo = Git.init(tmp_path)
    (tmp_path / "a.yaml").write_text("a\n")
    repo.commit(["a.yaml"], MESSAGE, WHEN, exact=True)
    assert git(tmp_path, "ls-files") == "a.yaml\n"
    _clean(tmp_path)
