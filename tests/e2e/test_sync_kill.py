"""kill -9 during `statedump sync`, at random moments, against a real bare remote: each round
ends in a store `doctor` calls healthy with every committed record in the work tree, or
one `doctor --repair` brings to that; and in the end nothing either clone committed is lost.

STATEDUMP_SYNC_KILLS=30 runs the issue's 30 rounds (the normal suite runs fewer).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import Cli, git, wait_until_gone

from statedump.core.store.store import Store
from statedump.models import Goal, Session

ROUNDS = int(os.environ.get("STATEDUMP_SYNC_KILLS", "6"))


def _ok(cli: Cli, *args: str) -> str:
    r = cli(*args)
    locks = [str(p) for p in cli.root.parent.rglob("*.lock") if p.name != "statedump.lock"]
    assert r.exit_code == 0, (r.output, locks)
    return r.output


def _sync_process(root: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "statedump", "sync", "--store", str(root)],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _assert_whole(root: Path) -> None:
    """HEAD on its branch, nothing stopped half-way, and every file HEAD has in the work tree, byte for byte."""
    assert git(root, "symbolic-ref", "-q", "HEAD").strip() == "refs/heads/main"
    assert not any((root / ".git" / n).exists() for n in ("rebase-merge", "rebase-apply", "MERGE_HEAD", "CHERRY_PICK_HEAD"))
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    committed = git(root, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert committed
    for rel in committed:
        shown = subprocess.run(["git", "-C", str(root), "show", f"HEAD:{rel}"], capture_output=True, check=True).stdout
        assert (root / rel).read_bytes() == shown, rel


@pytest.mark.slow
def test_kill_minus_nine_during_sync_at_random_moments(tmp_path: Path) -> None:
    seed = Store.init(tmp_path / "seed")
    seed.create_session(Session(id="s1", title="Shared"))
    seed.add("s1", Goal(id="serve", title="Serve the model", status="active"))
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(seed.root), str(bare)], check=True)
    roots = {}
    for name in ("alice", "bob"):
        subprocess.run(["git", "clone", "-q", str(bare), str(tmp_path / name)], check=True)
        roots[name] = tmp_path / name
    alice, bob = roots["alice"], roots["bob"]
    a, b = Cli(alice), Cli(bob)

    # How long one sync that fetches, renames, replays and pushes takes here: the kills fall inside it.
    _ok(b, "add", "goal", "--id", "warm", "--title", "Bob's warm-up")
    _ok(b, "sync")
    _ok(a, "add", "goal", "--id", "warm", "--title", "Alice's warm-up")
    started = time.monotonic()
    proc = _sync_process(alice)
    assert proc.wait() == 0
    span = time.monotonic() - started

    rng = random.Random(20261201)
    repaired = healthy = cleared = 0
    for n in range(ROUNDS):
        # Both sides add (the same id too, with other content: sync renames ours) so that
        # every sync fetches, rewrites, replays and pushes.
        _ok(b, "add", "goal", "--id", f"both-{n}", "--title", f"Bob's {n}")
        _ok(b, "add", "task", "--id", f"bob-{n}", "--title", f"Bob's task {n}")
        _ok(b, "sync")
        _ok(a, "add", "goal", "--id", f"both-{n}", "--title", f"Alice's {n}")
        _ok(a, "add", "task", "--id", f"alice-{n}", "--title", f"Alice's task {n}")
        proc = _sync_process(alice)
        time.sleep(rng.uniform(0.0, span * 1.1))
        os.killpg(proc.pid, signal.SIGKILL)  # sync and every git it was running
        proc.wait()
        wait_until_gone(proc.pid)

        # The remote's receive-pack runs in sync's process group over a local path, so the kill
        # can cut it off with a ref locked in the remote. A server's own process would not die
        # with the client; clear what it left, as its keeper would (the local store is ours).
        remote_locks = [p for p in bare.rglob("*.lock")]
        for lock in remote_locks:
            lock.unlink()
        cleared += len(remote_locks)

        report = a("doctor")
        if report.exit_code == 0:
            assert report.output.strip() == "store is healthy", report.output
            healthy += 1
        else:
            assert report.exit_code == 1, report.output
            fixed = a("doctor", "--repair")
            assert fixed.exit_code == 0, fixed.output
            assert a("doctor").output.strip() == "store is healthy"
            repaired += 1
        _assert_whole(alice)
        _ok(a, "validate")

    # Nothing either clone committed was lost: after two clean syncs both hold every record.
    _ok(a, "sync")
    _ok(b, "sync")
    _ok(a, "sync")
    assert git(alice, "rev-parse", "HEAD") == git(bob, "rev-parse", "HEAD") == git(bare, "rev-parse", "main")
    _assert_whole(alice)
    titles = {r.title for r in Store(alice).load("s1").records}
    for n in range(ROUNDS):
        assert {f"Bob's {n}", f"Alice's {n}", f"Bob's task {n}", f"Alice's task {n}"} <= titles, n
    print(f"{ROUNDS} kills: {healthy} healthy, {repaired} repaired; remote locks cleared: {cleared}")
    assert healthy + repaired == ROUNDS
