"""The store syncs its journal exactly when git's config asks git to sync a commit's loose objects."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import git

from statedump.core.git.durability import syncs_loose_objects
from statedump.core.store.store import Store
from statedump.models import Task


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # Only the repository's own config counts here: no system or global file.
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global"))
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    return root


@pytest.mark.parametrize(
    ("setting", "syncs"),
    [
        (None, False),  # git's default leaves loose objects out
        ("core.fsync=committed", True),
        ("core.fsync=added", True),
        ("core.fsync=all", True),
        ("core.fsync=objects", True),
        ("core.fsync=loose-object", True),
        ("core.fsync=committed,-loose-object", False),
        ("core.fsync=pack,reference", False),
        ("core.fsync=none", False),
        ("core.fsync=none,loose-object", True),
        ("core.fsyncObjectFiles=true", True),
        ("core.fsyncObjectFiles=false", False),
    ],
)
def test_git_settings_decide(repo: Path, setting: str | None, syncs: bool) -> None:
    if setting is not None:
        key, value = setting.split("=")
        git(repo, "config", key, value)  # written by git itself, in its own file format
    assert syncs_loose_objects(repo / ".git") is syncs


def test_a_global_setting_counts_and_the_repository_overrides_it(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    glob = tmp_path / "global"
    glob.write_text("[core]\n\tfsync = committed  # harden what a commit writes\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(glob))
    assert syncs_loose_objects(repo / ".git")
    git(repo, "config", "core.fsync", "none")
    assert not syncs_loose_objects(repo / ".git")


def test_a_write_syncs_its_journal_only_when_git_syncs_commits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global"))
    from statedump.models import Session

    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    store = Store.init(tmp_path / "s")
    store.create_session(Session(id="s1", title="t"))
    synced.clear()
    store.add("s1", Task(id="t1", title="one", status="todo"))
    assert synced == []  # git's default: neither the journal nor the file is synced
    git(store.root, "config", "core.fsync", "committed")
    again = Store(store.root)
    again.add("s1", Task(id="t2", title="two", status="todo"))
    assert len(synced) == 1  # the journal, before any file is touched
