"""The store on a real git repository: layout, commits with trailers, atomic failure, discovery."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import git, snapshot

from statedump.core.errors import StatedumpError
from statedump.core.store.store import Store
from statedump.models import Discovery, Goal, Links, Session


def test_add_writes_one_file_and_one_commit_with_trailers(store: Store) -> None:
    before = int(git(store.root, "rev-list", "--count", "HEAD"))
    store.add("s1", Discovery(id="fp8-scale", title="FP8 KV scale defaults to 1.0", source="msg 6008"))
    path = store.root / "sessions/s1/discovery/fp8-scale.yaml"
    assert path.is_file()
    assert int(git(store.root, "rev-list", "--count", "HEAD")) == before + 1
    message = git(store.root, "log", "-1", "--format=%B")
    assert message.startswith("discovery: add fp8-scale\n")
    trailers = git(store.root, "log", "-1", "--format=%(trailers:only,unfold)")
    assert "Statedump-Session: s1" in trailers
    assert "Statedump-Record: discovery/fp8-scale" in trailers
    assert "Statedump-Source: msg 6008" in trailers
    assert git(store.root, "status", "--porcelain") == ""


def test_duplicate_id_fails_and_changes_nothing(store: Store) -> None:
    store.add("s1", Goal(id="g", title="first"))
    before = snapshot(store.root)
    with pytest.raises(StatedumpError, match="already exists"):
        store.add("s1", Discovery(id="g", title="second"))
    assert snapshot(store.root) == before


def test_dangling_link_is_refused_before_anything_is_written(store: Store) -> None:
    before = snapshot(store.root)
    with pytest.raises(StatedumpError, match="evidence -> 'nope'"):
        store.add("s1", Discovery(id="d", title="t", links=Links(evidence=["nope"])))
    assert snapshot(store.root) == before


def test_failed_commit_restores_files_and_head(store: Store) -> None:
    store.add("s1", Goal(id="g", title="first"))
    before = snapshot(store.root)
    hook = store.root / ".git" / "hooks"
    # Make git itself fail at commit time: a broken HEAD lock is what a concurrent git would leave.
    (store.root / ".git" / "index.lock").write_text("")
    try:
        with pytest.raises(StatedumpError, match="git refused"):
            store.put("s1", Goal(id="g", title="changed"))
    finally:
        (store.root / ".git" / "index.lock").unlink()
    assert snapshot(store.root) == before
    assert hook.exists()


def test_hand_edited_and_committed_yaml_is_read_as_is(store: Store) -> None:
    folder = store.root / "sessions/s1/discovery"
    folder.mkdir(parents=True)
    (folder / "by-hand.yaml").write_text("id: by-hand\nkind: discovery\ntitle: Written in vim\nstatus: suspected\nat: 2026-03-01\n")
    git(store.root, "add", "-A")
    git(store.root, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "by hand")
    state = store.load("s1")
    rec = state.get("by-hand")
    assert rec is not None and rec.title == "Written in vim" and rec.status == "suspected"


def test_store_is_found_from_a_subfolder_and_from_the_environment(store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    sub = store.root / "sessions" / "s1"
    assert Store.find(cwd=sub).root == store.root
    monkeypatch.setenv("STATEDUMP_STORE", str(store.root))
    assert Store.find(cwd=tmp_path).root == store.root
    monkeypatch.delenv("STATEDUMP_STORE")
    with pytest.raises(StatedumpError, match="no statedump store here"):
        Store.find(cwd=tmp_path)


def test_session_choice_prefers_the_only_then_the_newest_active(store: Store) -> None:
    assert store.pick_session(None) == "s1"
    from datetime import UTC, datetime

    store.create_session(Session(id="s2", title="later", started=datetime(2026, 4, 1, tzinfo=UTC)))
    store.create_session(Session(id="s3", title="closed", status="closed", started=datetime(2026, 5, 1, tzinfo=UTC)))
    assert store.pick_session(None) == "s2"
    with pytest.raises(StatedumpError, match="no session"):
        store.pick_session("nope")


def test_secrets_are_redacted_before_they_reach_disk(store: Store) -> None:
    token = "hf_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7"
    store.add("s1", Discovery(id="leak", title="download", body=f"HF_TOKEN={token} huggingface-cli download"))
    text = (store.root / "sessions/s1/discovery/leak.yaml").read_text()
    assert token not in text and "HF_TOKEN=<redacted>" in text
    assert token not in git(store.root, "log", "-p", "--all")


def test_read_as_of_a_revision(store: Store) -> None:
    _, first = store.add("s1", Goal(id="g", title="first"))
    store.put("s1", Goal(id="g", title="second"))
    store.add("s1", Discovery(id="d", title="later"))
    old = store.load("s1", first)
    assert [r.id for r in old.records] == ["g"]
    assert old.records[0].title == "first"
