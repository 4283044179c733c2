"""HEAD read from .git's files (core/git/refs.py) agrees with `git rev-parse` in every state a
store's repository is found in, and says UNKNOWN where it cannot tell."""

from __future__ import annotations

import subprocess
from pathlib import Path

from helpers import git

from statedump.core.git import refs
from statedump.core.git.gateway import Git


def rev_parse(root: Path) -> str | None:
    done = subprocess.run(["git", "-C", str(root), "rev-parse", "-q", "--verify", "HEAD"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or None


def commit(root: Path, name: str) -> None:
    (root / name).write_text(name)
    git(root, "add", name)
    git(root, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", name)


def test_head_in_every_state_of_a_repository(tmp_path: Path) -> None:
    root = tmp_path / "r"
    git(tmp_path, "init", "-q", "--initial-branch=main", str(root))
    gd = root / ".git"
    assert refs.head(gd) is None and Git(root).head() is None  # no commit yet
    commit(root, "a")
    assert refs.head(gd) == rev_parse(root)  # the loose ref
    git(root, "pack-refs", "--all")
    assert not (gd / "refs/heads/main").exists()
    assert refs.head(gd) == rev_parse(root)  # packed-refs only
    commit(root, "b")
    assert refs.head(gd) == rev_parse(root)  # a loose ref newer than the packed one
    git(root, "checkout", "-q", "--detach")
    assert (gd / "HEAD").read_text().strip() == rev_parse(root)
    assert refs.head(gd) == rev_parse(root)  # detached: HEAD holds the id
    git(root, "checkout", "-q", "-b", "other")
    commit(root, "c")
    assert refs.head(gd) == rev_parse(root) == Git(root).head()


def test_what_it_cannot_tell_is_left_to_git(tmp_path: Path) -> None:
    root = tmp_path / "r"
    git(tmp_path, "init", "-q", "--initial-branch=main", str(root))
    commit(root, "a")
    sha = rev_parse(root)
    assert sha is not None
    gd = root / ".git"
    (gd / "HEAD").write_text("ref: refs/heads/../../outside\n")
    assert refs.head(gd) == refs.UNKNOWN
    (gd / "HEAD").write_text("ref: refs/heads/main\n")
    (gd / "refs/heads/main").write_text("not a sha\n")
    assert refs.head(gd) == refs.UNKNOWN
    assert refs.head(tmp_path / "no-such-git-dir") == refs.UNKNOWN
    # A linked work tree's .git is a file: git is asked, and answers the same.
    linked = tmp_path / "linked"
    (gd / "refs/heads/main").write_text(sha + "\n")
    git(root, "worktree", "add", "-q", "--detach", str(linked))
    assert refs.head(linked / ".git") == refs.UNKNOWN
    assert Git(linked).head() == rev_parse(linked)
