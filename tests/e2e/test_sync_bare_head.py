"""`statedump sync` in a clone of a bare remote whose HEAD names a branch it does not have
(`git init --bare` says master; statedump works on main): the store's branch is checked out,
tracking the remote, and the sync goes on — said in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import git


def _statedump(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "statedump", *args], cwd=cwd, capture_output=True, text=True, check=False)


def test_a_clone_with_nothing_checked_out_gets_the_stores_branch(tmp_path: Path) -> None:
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "--initial-branch=master", str(bare))
    first = tmp_path / "first"
    assert _statedump(tmp_path, "init", str(first)).returncode == 0
    assert _statedump(first, "session", "new", "s1", "--title", "Shared").returncode == 0
    assert _statedump(first, "add", "task", "--title", "Written on the first machine").returncode == 0
    git(first, "remote", "add", "origin", str(bare))
    assert _statedump(first, "sync").returncode == 0

    clone = tmp_path / "second"
    subprocess.run(["git", "clone", "-q", str(bare), str(clone)], check=True, capture_output=True)
    assert not (clone / "sessions").exists()  # git checked nothing out
    done = _statedump(clone, "sync")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("checked out main from origin/main: the remote's HEAD names a branch it does not have")
    assert git(clone, "rev-parse", "--abbrev-ref", "main@{upstream}").strip() == "origin/main"
    listed = _statedump(clone, "list")
    assert "written-on-the-first-machine" in listed.stdout


def test_a_repository_with_work_of_its_own_is_left_alone(tmp_path: Path) -> None:
    repo = tmp_path / "other"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "notes.txt").write_text("mine\n")
    done = _statedump(repo, "sync")
    assert done.returncode == 2 and "no statedump store here" in done.stderr and "Traceback" not in done.stderr
