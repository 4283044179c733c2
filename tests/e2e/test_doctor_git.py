"""`doctor` against what git and crashes leave: every lock, a rebase stopped half-way, a write
killed over a hand edit, planted journals (`../` paths, a FIFO), its own temp files; and
neither doctor nor a read runs the programs a repository's config names."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import Cli, git, snapshot

from statedump.core.store.store import Store
from statedump.models import Decision, Discovery, Goal


def _doctor(store: Store, *args: str) -> subprocess.CompletedProcess[str]:
    # A child with a deadline: a planted FIFO must not hang it.
    return subprocess.run(
        [sys.executable, "-m", "statedump", "doctor", "--store", str(store.root), *args], capture_output=True, text=True, timeout=60
    )


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


LOCKS = ("index.lock", "HEAD.lock", "config.lock", "packed-refs.lock", "REBASE_HEAD.lock", "refs/heads/main.lock", "refs/tags/x.lock")


def test_every_stale_git_lock_is_found_and_removed(store: Store) -> None:
    store.add("s1", Goal(id="g", title="Goal"))
    for name in LOCKS:
        (store.root / ".git" / name).parent.mkdir(parents=True, exist_ok=True)
        (store.root / ".git" / name).write_bytes(b"")
    r = _doctor(store)
    assert r.returncode == 1
    for name in LOCKS:
        assert f".git/{name}: stale git lock — would remove" in r.stdout, name
    assert ".git/statedump.lock" not in r.stdout  # our flock is never stale
    assert _doctor(store, "--repair").returncode == 0
    assert not any((store.root / ".git" / n).exists() for n in LOCKS)
    assert _doctor(store).stdout.strip() == "store is healthy"
    assert Cli(store.root)("add", "goal", "--id", "after", "--title", "After").exit_code == 0


def test_its_own_temp_files_are_cleaned(store: Store) -> None:
    scratch = store.root / ".git" / "statedump"
    scratch.mkdir(exist_ok=True)
    dead = scratch / f".records-s1.pickle.{_dead_pid()}.tmp"
    live = scratch / f".records-s1.pickle.{os.getpid()}.tmp"  # a reader writing its cache right now
    left = [dead, scratch / "sync.index", scratch / "sync.index.lock", scratch / "sync-rename.index"]
    left.append(store.root / ".git" / "statedump-sync.attributes")  # what sync before this version left
    left.append(store.root / ".git" / f".statedump-journal.json.{_dead_pid()}.tmp")  # a journal write cut off
    for path in [*left, live]:
        path.write_bytes(b"x")
    r = _doctor(store)
    assert r.returncode == 1
    for path in left:
        assert f"{path.relative_to(store.root)}: leftover temp file — would remove" in r.stdout
    assert live.name not in r.stdout
    assert _doctor(store, "--repair").returncode == 0
    assert not any(p.exists() for p in left) and live.exists()


def _stopped_rebase(store: Store) -> None:
    """A rebase stopped at a conflict, as `git rebase` (and statedump before) left it:
    main has records the detached work tree lacks."""
    store.add("s1", Goal(id="g", title="Goal"))
    git(store.root, "config", "user.name", "Ann")
    git(store.root, "config", "user.email", "ann@example.org")
    git(store.root, "branch", "other")
    store.add("s1", Discovery(id="d1", title="Mine"))
    store.add("s1", Discovery(id="d2", title="Mine too"))
    git(store.root, "switch", "-q", "other")
    (store.root / "sessions/s1/discovery").mkdir(exist_ok=True)
    (store.root / "sessions/s1/discovery/d1.yaml").write_text("id: d1\nkind: discovery\ntitle: Theirs\n")
    git(store.root, "add", "-A")
    git(store.root, "commit", "-q", "-m", "theirs")
    git(store.root, "switch", "-q", "main")
    done = subprocess.run(["git", "-C", str(store.root), "rebase", "other"], capture_output=True)
    assert done.returncode != 0 and (store.root / ".git/rebase-merge").is_dir()


def test_add_refuses_a_detached_head_mid_rebase_and_doctor_says_what_is_missing(store: Store) -> None:
    _stopped_rebase(store)
    before = snapshot(store.root)
    r = Cli(store.root)("add", "goal", "--id", "lost", "--title", "Would be lost by rebase --abort")
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1
    assert "git is in the middle of a rebase" in r.output
    assert snapshot(store.root) == before
    report = _doctor(store)
    assert report.returncode == 1
    assert "git is stopped in the middle of a rebase; 1 record(s) committed on main are not in the work tree" in report.stdout
    assert "git rebase --abort" in report.stdout
    # Left alone even with --repair: the rebase is the user's (or git's) to finish.
    assert _doctor(store, "--repair").returncode == 1 and (store.root / ".git/rebase-merge").is_dir()


_KILLED_WRITE = """
import os, signal, sys
from pathlib import Path
from statedump.core import codec
from statedump.core.store.files import write_atomic
from statedump.core.store.store import Store
from statedump.models import Discovery
store = Store(Path(sys.argv[1]))
path = store.record_path("s1", "discovery", "d")
with store.lock():
    store.begin_write([path], "discovery: edit d")
    write_atomic(path, codec.dump_record(Discovery(id="d", title="The write that was killed")).encode())
    os.kill(os.getpid(), signal.SIGKILL)  # dies between writing the file and committing it
"""


def test_repair_puts_back_the_hand_edit_a_killed_write_overwrote(store: Store, tmp_path: Path) -> None:
    store.add("s1", Discovery(id="d", title="Committed"))
    record = store.root / "sessions/s1/discovery/d.yaml"
    hand_edited = record.read_text().replace("Committed", "Edited by hand, not committed yet")
    record.write_text(hand_edited)
    script = tmp_path / "killed.py"
    script.write_text(_KILLED_WRITE)
    done = subprocess.run([sys.executable, str(script), str(store.root)])
    assert done.returncode == -signal.SIGKILL
    assert "The write that was killed" in record.read_text()
    r = _doctor(store)
    assert "would roll back to what the files held before it" in r.stdout
    assert _doctor(store, "--repair").returncode == 0
    assert record.read_text() == hand_edited
    assert "d.yaml: record file changed since its last commit — left alone" in _doctor(store).stdout
    assert not store.journal_path.exists()


def _plant_journal(store: Store, paths: list[str]) -> None:
    before = {p: base64.b64encode(b"planted\n").decode() for p in paths}
    entry = {"head": None, "paths": paths, "subject": "x", "before": before}
    store.journal_path.write_text(json.dumps(entry))


@pytest.mark.parametrize("bad", ["../outside.txt", "sessions/../../outside.txt", "/tmp/abs.txt", "sessions/s1/../../../outside.txt"])
def test_a_planted_journal_naming_paths_outside_the_store_is_refused(store: Store, bad: str) -> None:
    outside = store.root.parent / "outside.txt"
    outside.write_text("the user's own file\n")
    _plant_journal(store, ["sessions/s1/goal/ok.yaml", bad])
    r = _doctor(store, "--repair")
    assert "journal refused" in r.stdout and "nothing restored" in r.stdout
    assert outside.read_text() == "the user's own file\n"
    assert not (store.root / "sessions/s1/goal/ok.yaml").exists()
    assert not store.journal_path.exists()


def test_a_planted_journal_through_a_symlink_out_of_the_store_is_refused(store: Store, tmp_path: Path) -> None:
    away = tmp_path / "away"
    away.mkdir()
    (store.root / "sessions/s1/link").symlink_to(away)
    _plant_journal(store, ["sessions/s1/link/x.yaml"])
    r = _doctor(store, "--repair")
    assert "outside sessions/" in r.stdout
    assert not (away / "x.yaml").exists()


def test_a_fifo_as_journal_is_refused_not_waited_on(store: Store) -> None:
    os.mkfifo(store.journal_path)
    r = _doctor(store)
    assert r.returncode == 1 and "journal refused (not a regular file)" in r.stdout
    assert _doctor(store, "--repair").returncode == 0
    assert not os.path.lexists(store.journal_path)


def test_doctor_and_reads_never_run_programs_from_the_repository_config(store: Store, tmp_path: Path) -> None:
    store.add("s1", Goal(id="g", title="Goal"))
    store.add("s1", Decision(id="kv", title="KV cache dtype", choice="bf16"))
    ran = tmp_path / "ran"
    ran.mkdir()
    (store.root / ".gitattributes").write_text("*.yaml filter=evil\n")
    git(store.root, "config", "filter.evil.clean", f"sh -c 'touch {ran}/clean; cat'")
    git(store.root, "config", "filter.evil.process", f"sh -c 'touch {ran}/process'")
    git(store.root, "config", "core.fsmonitor", f"sh -c 'touch {ran}/fsmonitor'")
    git(store.root, "config", "log.showSignature", "true")
    git(store.root, "config", "gpg.program", f"sh -c 'touch {ran}/gpg'")
    record = store.root / "sessions/s1/goal/g.yaml"
    os.utime(record)  # a changed stat: `git status` re-reads the file, through its filter
    cli = Cli(store.root)
    assert _doctor(store).returncode in (0, 1)
    for args in (("list",), ("log",), ("why", "kv"), ("show", "g"), ("render",)):
        assert cli(*args).exit_code == 0, args
    assert sorted(p.name for p in ran.iterdir()) == []


def test_a_store_git_refuses_is_one_line_not_no_commits_yet(store: Store) -> None:
    store.add("s1", Decision(id="kv", title="KV cache dtype", choice="bf16"))
    # git's own knob for "owned by someone else" (the real check, run by the real git).
    env = {**os.environ, "GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"}
    for args in (["log"], ["why", "kv"], ["add", "goal", "--title", "t"], ["doctor"]):
        done = subprocess.run(
            [sys.executable, "-m", "statedump", *args, "--store", str(store.root)], capture_output=True, text=True, env=env, timeout=60
        )
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert "git refused the repository: it is owned by another user" in done.stderr, args
        assert "safe.directory" in done.stderr and "no commits" not in done.stdout + done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
