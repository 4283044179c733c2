"""A cloned store can hold symbolic links planted to files outside it. Records and sessions are
never read or written through such a link: every command that meets one says so in one line,
exits 2, shows nothing of the outside file, and commits nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import git

from statedump.core.store.store import Store

OUTSIDE = """\
id: planted
kind: discovery
title: OUTSIDE-CONTENT the file the link points at
status: confirmed
body: OUTSIDE-CONTENT private text
"""


def _run(store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "STATEDUMP_STORE": str(store)}
    return subprocess.run([sys.executable, "-m", "statedump", *args], capture_output=True, text=True, env=env, timeout=60, cwd=store)


def _planted_clone(store: Store, tmp_path: Path, link: str, target: Path) -> Path:
    """A clone of `store` whose commit holds a symbolic link at `link` pointing at `target`."""
    at = store.root / link
    if at.is_dir():
        for child in at.iterdir():
            child.unlink()
        at.rmdir()
    at.parent.mkdir(parents=True, exist_ok=True)
    at.symlink_to(target)
    git(store.root, "add", "-A")
    git(store.root, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "-m", "plant a link")
    clone = tmp_path / f"clone-{link.replace('/', '-')}"
    subprocess.run(["git", "clone", "-q", str(store.root), str(clone)], check=True)
    assert (clone / link).is_symlink()
    return clone


def _refused(got: subprocess.CompletedProcess[str], what: str) -> None:
    assert got.returncode == 2, (what, got.stdout, got.stderr)
    assert "OUTSIDE-CONTENT" not in got.stdout + got.stderr, what
    assert "Traceback" not in got.stderr, what
    assert len(got.stderr.strip().splitlines()) == 1, (what, got.stderr)
    assert "leads out of the store" in got.stderr, (what, got.stderr)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "planted.yaml").write_text(OUTSIDE)
    (folder / "session.yaml").write_text("id: s2\ntitle: OUTSIDE-CONTENT session\n")
    return folder


def test_a_record_linked_out_of_the_store_is_never_read_or_written(store: Store, tmp_path: Path, outside: Path) -> None:
    clone = _planted_clone(store, tmp_path, "sessions/s1/discovery/planted.yaml", outside / "planted.yaml")
    head = git(clone, "rev-parse", "HEAD")
    for args in (
        ("show", "planted"),
        ("status", "planted", "resolved"),
        ("edit", "planted", "--body", "new text"),
        ("list",),
        ("render",),
        ("validate",),
    ):
        _refused(_run(clone, *args), args[0])
    assert git(clone, "rev-parse", "HEAD") == head
    assert (clone / "sessions/s1/discovery/planted.yaml").is_symlink()
    assert (outside / "planted.yaml").read_text() == OUTSIDE
    assert git(clone, "status", "--porcelain") == ""


def test_a_kind_folder_linked_out_of_the_store_is_never_written(store: Store, tmp_path: Path, outside: Path) -> None:
    clone = _planted_clone(store, tmp_path, "sessions/s1/task", outside)
    head = git(clone, "rev-parse", "HEAD")
    _refused(_run(clone, "add", "task", "--title", "write through the link"), "add")
    assert sorted(p.name for p in outside.iterdir()) == ["planted.yaml", "session.yaml"]
    assert git(clone, "rev-parse", "HEAD") == head


def test_a_session_folder_linked_out_of_the_store_is_never_read(store: Store, tmp_path: Path, outside: Path) -> None:
    (outside / "discovery").mkdir()
    (outside / "discovery" / "planted.yaml").write_text(OUTSIDE)
    clone = _planted_clone(store, tmp_path, "sessions/s2", outside)
    for args in (("list", "-s", "s2"), ("render", "-s", "s2"), ("show", "planted", "-s", "s2")):
        _refused(_run(clone, *args), args[0])
