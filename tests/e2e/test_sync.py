"""Sharing through a git remote: a bare repository and two clones that write at the same
time, then `statedump sync` both ways."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import Cli, git, isolate, snapshot

from statedump.core.store.store import Store
from statedump.models import Decision, Goal, Session, Task
from statedump.services.refs import list_dumps, tag_dump


def _clone(bare: Path, dest: Path, name: str) -> tuple[Path, Cli]:
    subprocess.run(["git", "clone", "-q", str(bare), str(dest)], check=True)
    git(dest, "config", "user.name", name)
    git(dest, "config", "user.email", f"{name.lower()}@example.org")
    return dest, Cli(dest)


@pytest.fixture(scope="module")
def seed_remote(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bare repository holding a store with session s1, built once and copied per test."""
    home = tmp_path_factory.mktemp("seedhome")
    with pytest.MonkeyPatch.context() as mp:
        isolate(mp, home)
        seed = Store.init(tmp_path_factory.mktemp("seed") / "store")
        seed.create_session(Session(id="s1", title="Shared session"))
        seed.add("s1", Goal(id="serve", title="Serve the model", status="active"))
        seed.add("s1", Task(id="nccl", title="Tune NCCL", status="todo"))
        seed.add("s1", Decision(id="kv", title="KV cache dtype", choice="--kv-cache-dtype bf16"))
        bare = tmp_path_factory.mktemp("seedremote") / "remote.git"
        subprocess.run(["git", "clone", "-q", "--bare", str(seed.root), str(bare)], check=True)
    return bare


@pytest.fixture
def team(seed_remote: Path, tmp_path: Path) -> tuple[Path, Path, Cli, Path, Cli]:
    """A bare remote of its own, and clones for Alice and Bob."""
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(seed_remote), str(bare)], check=True)
    alice, a = _clone(bare, tmp_path / "alice", "Alice")
    bob, b = _clone(bare, tmp_path / "bob", "Bob")
    return bare, alice, a, bob, b


def _subjects(root: Path, rev: str = "HEAD") -> list[str]:
    return git(root, "log", "--format=%an|%s", rev).splitlines()


def _ok(cli: Cli, *args: str) -> str:
    r = cli(*args)
    assert r.exit_code == 0, r.output
    return r.output


def test_concurrent_adds_and_edits_sync_both_ways(team: tuple[Path, Path, Cli, Path, Cli]) -> None:
    bare, alice, a, bob, b = team
    # Alice: a discovery, a decision resting on it, an edit, a dump.
    _ok(a, "add", "discovery", "--id", "fp8-kv-scale", "--title", "FP8 KV scale is 1.0", "--field", "category=risk")
    _ok(a, "add", "decision", "--id", "bf16", "--title", "BF16 KV", "--field", "choice=bf16", "--link", "evidence:fp8-kv-scale")
    _ok(a, "status", "serve", "achieved")
    tag_dump(Store(alice), "s1", "Alice's dump")
    # Bob, at the same time: the same id with other content, a task linking to it, another edit, a dump.
    _ok(b, "add", "discovery", "--id", "fp8-kv-scale", "--title", "FP8 KV scales missing", "--source", "msg 6008")
    _ok(b, "add", "task", "--id", "calibrate", "--title", "Calibrate FP8 scales", "--link", "relates_to:fp8-kv-scale")
    _ok(b, "status", "nccl", "in-progress")
    tag_dump(Store(bob), "s1", "Bob's dump")
    alice_own, bob_own = _subjects(alice), _subjects(bob)

    out_a = _ok(a, "sync")
    assert "pushed main and 1 dump tag(s) to origin" in out_a
    out_b = _ok(b, "sync")
    assert "fetched 3 new commit(s) from origin/main" in out_b and "replayed 3 local commit(s)" in out_b
    # The suffix is the short sha of the commit that added the record in Bob's clone.
    adder = git(bob, "log", "--format=%H", "--diff-filter=A", "refs/statedump/pre-sync", "--", "sessions/s1/discovery/fp8-kv-scale.yaml")
    renamed = f"fp8-kv-scale-{adder[:7]}"
    assert f"renamed discovery fp8-kv-scale -> {renamed}" in out_b
    assert "renumbered dump dump/s1/1 -> dump/s1/2" in out_b
    out_a = _ok(a, "sync")
    assert "fetched 3 new commit(s)" in out_a

    # Both clones and the remote hold the same history, with every record in it.
    head = git(alice, "rev-parse", "HEAD")
    assert git(bob, "rev-parse", "HEAD") == head == git(bare, "rev-parse", "main")
    files = git(alice, "ls-files", "sessions")
    assert files == git(bob, "ls-files", "sessions")
    for rid in ("fp8-kv-scale", renamed, "bf16", "calibrate", "serve", "nccl", "kv"):
        assert f"/{rid}.yaml\n" in files, rid
    for root in (alice, bob):
        state = Store(root).load("s1")
        assert state.get("fp8-kv-scale").title == "FP8 KV scale is 1.0"  # type: ignore[union-attr]
        assert state.get(renamed).title == "FP8 KV scales missing"  # type: ignore[union-attr]
        assert state.get("calibrate").links.relates_to == [renamed]  # type: ignore[union-attr]
        assert state.get("bf16").links.evidence == ["fp8-kv-scale"]  # type: ignore[union-attr]
        assert (state.get("serve").status, state.get("nccl").status) == ("achieved", "in-progress")  # type: ignore[union-attr]
        assert _ok(Cli(root), "validate") is not None
        assert git(root, "status", "--porcelain") == ""

    # Histories intact: a straight line holding every commit of each clone, none lost.
    final = _subjects(alice)
    assert git(alice, "rev-list", "--merges", "HEAD") == ""
    assert len(final) == len(set(alice_own) | set(bob_own))
    expected_bob = [s.replace("fp8-kv-scale", renamed) if s.startswith("Bob|discovery") else s for s in bob_own]
    assert set(alice_own) <= set(final) and set(expected_bob) <= set(final)
    assert f"Statedump-Record: discovery/{renamed}" in git(
        bob, "log", "-1", "--format=%B", "--author=Bob", "--", f"sessions/s1/discovery/{renamed}.yaml"
    )

    # Dump tags travelled both ways; Bob's kept its commit and its message.
    for root in (alice, bob):
        dumps = {d.name: d.message for d in list_dumps(Store(root), "s1")}
        assert dumps == {"dump/s1/1": "Alice's dump", "dump/s1/2": "Bob's dump"}
    assert git(bare, "tag", "--list", "dump/*").split() == ["dump/s1/1", "dump/s1/2"]
    assert git(alice, "rev-parse", "dump/s1/2^{}") == git(bob, "rev-parse", "refs/statedump/pre-sync")


def test_two_edits_of_one_record_keep_both_and_stop(team: tuple[Path, Path, Cli, Path, Cli]) -> None:
    bare, alice, a, bob, b = team
    _ok(a, "status", "kv", "accepted")
    _ok(b, "edit", "kv", "--field", "rationale=No calibrated FP8 scales in the checkpoint")
    _ok(b, "add", "goal", "--id", "accuracy", "--title", "Keep full accuracy")
    _ok(b, "status", "kv", "rejected")  # a second local change: the copy holds the latest
    _ok(a, "sync")
    remote_head = git(bare, "rev-parse", "main")
    bob_subjects = _subjects(bob)

    r = b("sync")
    assert r.exit_code == 1
    assert "conflict: decision/kv was changed both here and on origin" in r.stderr
    assert "statedump edit kv" in r.stderr and "nothing was pushed" in r.output
    copies = list((bob / "conflicts/s1/decision").glob("kv.*.yaml"))
    assert len(copies) == 1 and f"conflicts/s1/decision/{copies[0].name}" in r.stderr
    # Both versions kept: Alice's in place, Bob's as the copy; nothing lost, nothing pushed.
    in_place = (bob / "sessions/s1/decision/kv.yaml").read_text()
    assert "status: accepted" in in_place and "rationale" not in in_place
    assert "rationale: No calibrated FP8 scales" in copies[0].read_text() and "status: rejected" in copies[0].read_text()
    assert git(bare, "rev-parse", "main") == remote_head
    assert set(bob_subjects) <= set(_subjects(bob)) and git(bob, "rev-list", "--merges", "HEAD") == ""
    assert not (bob / ".git/rebase-merge").exists() and git(bob, "status", "--porcelain") == ""
    _ok(b, "validate")
    assert "accuracy" in _ok(b, "list")

    # Until the copy is resolved, sync refuses and changes nothing.
    before = snapshot(bob)
    r = b("sync")
    assert r.exit_code == 1 and "unresolved conflict copies" in r.stderr
    assert snapshot(bob) == before

    # Resolve as the message says, sync, and Alice gets the merged record.
    _ok(b, "edit", "kv", "--field", "rationale=No calibrated FP8 scales in the checkpoint")
    git(bob, "rm", "-q", str(copies[0].relative_to(bob)))
    git(bob, "commit", "-q", "-m", "resolve kv")
    _ok(b, "sync")
    _ok(a, "sync")
    kv = Store(alice).get("s1", "kv")
    assert isinstance(kv, Decision) and kv.status == "accepted" and kv.rationale
    assert Store(alice).get("s1", "accuracy").title == "Keep full accuracy"


def test_a_record_deleted_on_one_side_and_changed_on_the_other(team: tuple[Path, Path, Cli, Path, Cli]) -> None:
    _bare, alice, a, bob, b = team
    git(alice, "rm", "-q", "sessions/s1/task/nccl.yaml")
    git(alice, "commit", "-q", "-m", "task: drop nccl")
    _ok(a, "sync")
    _ok(b, "status", "nccl", "done")
    r = b("sync")
    assert r.exit_code == 1
    assert "conflict: task/nccl was deleted on origin but changed here" in r.stderr
    copy = next((bob / "conflicts/s1/task").glob("nccl.*.yaml"))
    assert "status: done" in copy.read_text()
    assert not (bob / "sessions/s1/task/nccl.yaml").exists()


def test_a_conflict_outside_the_records_leaves_the_clone_as_it_was(team: tuple[Path, Path, Cli, Path, Cli]) -> None:
    _bare, alice, a, bob, b = team
    for root, text in ((alice, "Alice's notes\n"), (bob, "Bob's notes\n")):
        (root / "NOTES.md").write_text(text)
        git(root, "add", "NOTES.md")
        git(root, "commit", "-q", "-m", "notes")
    _ok(b, "add", "goal", "--id", "g2", "--title", "Second goal")
    _ok(a, "sync")
    before = snapshot(bob)
    r = b("sync")
    assert r.exit_code == 1
    assert "NOTES.md was changed both here and on origin" in r.stderr
    assert snapshot(bob) == before
    assert not (bob / ".git/rebase-merge").exists()


def test_refusals(team: tuple[Path, Path, Cli, Path, Cli], tmp_path: Path) -> None:
    _bare, alice, a, _bob, b = team
    (alice / "sessions/s1/goal/serve.yaml").write_text("changed by hand\n")
    r = a("sync")
    assert r.exit_code == 2 and "uncommitted changes (sessions/s1/goal/serve.yaml)" in r.stderr
    r = b("sync", "--remote", "upstream")
    assert r.exit_code == 2 and "no git remote 'upstream'" in r.stderr
    lonely = Store.init(tmp_path / "lonely")
    r = Cli(lonely.root)("sync")
    assert r.exit_code == 2 and "the store has no git remote" in r.stderr


def test_first_push_to_an_empty_remote_and_nothing_to_do(tmp_path: Path) -> None:
    st = Store.init(tmp_path / "solo")
    st.create_session(Session(id="s1", title="Solo"))
    bare = tmp_path / "empty.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    git(st.root, "remote", "add", "origin", str(bare))
    cli = Cli(st.root)
    assert "pushed main to origin" in _ok(cli, "sync")
    assert git(bare, "rev-parse", "main") == git(st.root, "rev-parse", "HEAD")
    assert "nothing to push" in _ok(cli, "sync")
    done = json.loads(_ok(cli, "sync", "--json"))
    assert (done["remote"], done["branch"], done["pushed"], done["conflicts"]) == ("origin", "main", False, [])


def test_a_record_deleted_here_and_changed_on_the_remote(team: tuple[Path, Path, Cli, Path, Cli]) -> None:
    _bare, alice, a, bob, b = team
    _ok(a, "status", "nccl", "done")
    _ok(a, "sync")
    git(bob, "rm", "-q", "sessions/s1/task/nccl.yaml")
    git(bob, "commit", "-q", "-m", "task: drop nccl")
    r = b("sync")
    assert r.exit_code == 1
    assert "conflict: task/nccl was deleted here but changed on origin" in r.stderr
    assert "status: done" in (bob / "sessions/s1/task/nccl.yaml").read_text()
    assert not (bob / "conflicts").exists()
    assert not (bob / ".git/rebase-merge").exists() and git(bob, "status", "--porcelain") == ""
    assert git(bob, "rev-parse", "HEAD") == git(alice, "rev-parse", "HEAD")  # the emptied commit was dropped


def test_both_sides_edit_the_session_file(team: tuple[Path, Path, Cli, Path, Cli]) -> None:
    _bare, alice, a, bob, b = team
    for root, title in ((alice, "Alice's title"), (bob, "Bob's title")):
        st = Store(root)
        st.update_session(st.load_session("s1").model_copy(update={"title": title}))
    _ok(a, "sync")
    r = b("sync")
    assert r.exit_code == 1
    assert "conflict: sessions/s1/session.yaml was changed both here and on origin" in r.stderr
    copy = next((bob / "conflicts/s1").glob("session.*.yaml"))
    assert "Bob's title" in copy.read_text()
    assert Store(bob).load_session("s1").title == "Alice's title"
    _ok(b, "list")


def test_a_push_refused_once_is_retried(team: tuple[Path, Path, Cli, Path, Cli]) -> None:
    bare, alice, a, _bob, _b = team
    hook = bare / "hooks" / "pre-receive"
    hook.write_text('#!/bin/sh\nif [ ! -e "$GIT_DIR/refused-once" ]; then touch "$GIT_DIR/refused-once"; echo busy >&2; exit 1; fi\n')
    hook.chmod(0o755)
    _ok(a, "add", "goal", "--id", "g2", "--title", "Second goal")
    assert "pushed main to origin" in _ok(a, "sync")
    assert (bare / "refused-once").exists()
    assert git(bare, "rev-parse", "main") == git(alice, "rev-parse", "HEAD")
