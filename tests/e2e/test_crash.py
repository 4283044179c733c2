"""Crashes: kill -9 a writer at random moments; nothing committed is lost, and doctor repairs the rest."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner
from helpers import git, wait_until_gone

from statedump.cli import main
from statedump.core import codec
from statedump.core.store.store import Store
from statedump.services.doctor import examine
from statedump.services.validate import validate_session

WRITER = """
import sys, itertools
from statedump.core.store.store import Store
from statedump.models import Discovery, Task
store = Store(__import__("pathlib").Path(sys.argv[1]))
tag = sys.argv[2]
for i in itertools.count():
    store.add("s1", Discovery(id=f"{tag}-d{i}", title=f"finding {i}", body="line one\\nline two\\n" * 20))
    if i % 3 == 0:
        store.put("s1", Discovery(id=f"{tag}-d{i}", title=f"finding {i} (edited)", status="suspected"))
"""


def _assert_sound(store: Store) -> None:
    # Every file on disk is complete and valid, and matches what git has committed.
    assert validate_session(store, "s1") == []
    assert git(store.root, "status", "--porcelain", "--untracked-files=all") == ""
    committed = git(store.root, "ls-tree", "-r", "--name-only", "HEAD", "sessions/s1").split()
    for rel in committed:
        data = (store.root / rel).read_bytes()
        assert data == subprocess.run(["git", "-C", str(store.root), "show", f"HEAD:{rel}"], capture_output=True, check=True).stdout
        if rel.endswith(".yaml") and not rel.endswith("session.yaml"):
            codec.load_record(data, rel)


def test_kill_minus_nine_at_random_moments(store: Store, tmp_path: Path) -> None:
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    rng = random.Random(20261129)
    deadline = time.monotonic() + 20
    rounds = 0
    repaired_something = False
    while rounds < 12 and time.monotonic() < deadline:
        proc = subprocess.Popen(
            [sys.executable, str(script), str(store.root), f"r{rounds}"], start_new_session=True, stderr=subprocess.DEVNULL
        )
        time.sleep(rng.uniform(0.4, 1.2))
        os.killpg(proc.pid, signal.SIGKILL)  # the writer and any git child it was running
        proc.wait()
        wait_until_gone(proc.pid)
        found = examine(store, repair=True)
        repaired_something |= bool(found)
        _assert_sound(store)
        assert examine(store) == []
        rounds += 1
    assert rounds >= 5
    commits = int(git(store.root, "rev-list", "--count", "HEAD"))
    assert commits > rounds  # the writers did get work committed between kills
    assert git(store.root, "fsck", "--no-progress", "--no-dangling") == ""


def test_doctor_reports_and_repairs_each_leftover(store: Store) -> None:
    (store.root / "sessions/s1/discovery").mkdir(parents=True)
    tmp = store.root / "sessions/s1/discovery/.x.yaml.123.tmp"
    tmp.write_text("half")
    half = store.root / "sessions/s1/discovery/half-import.yaml"
    half.write_text("id: half-import\nkind: discovery\ntitle: t\nstatus: confirmed\n")
    store.journal_path.write_text(
        f'{{"head": "{store.git.head()}", "paths": ["sessions/s1/discovery/half-import.yaml"], "subject": "import: x"}}'
    )
    lock = store.git.git_dir / "index.lock"
    lock.write_text("")
    runner = CliRunner()
    report = runner.invoke(main, ["doctor", "--store", str(store.root)])
    assert report.exit_code == 1
    for needle in ("stale git lock", "unfinished write", "stray temp file"):
        assert needle in report.output
    assert tmp.exists() and half.exists()  # reporting changes nothing
    fixed = runner.invoke(main, ["doctor", "--repair", "--store", str(store.root)])
    assert fixed.exit_code == 0, fixed.output
    assert not tmp.exists() and not half.exists() and not lock.exists() and not store.journal_path.exists()
    assert runner.invoke(main, ["doctor", "--store", str(store.root)]).output.strip() == "store is healthy"


def test_doctor_waits_while_git_holds_its_lock(store: Store) -> None:
    lock = store.git.git_dir / "index.lock"
    store.journal_path.write_text(f'{{"head": "{store.git.head()}", "paths": ["sessions/s1/goal/x.yaml"], "subject": "goal: add x"}}')
    with open(lock, "w"):  # a live process (this one) holds git's lock open
        found = examine(store, repair=True)
        assert [f.kind for f in found][:1] == ["git is running"]
        assert any(f.action == "left alone while git is running" for f in found)
        assert store.journal_path.exists() and lock.exists()
    lock.unlink()
    assert any("rolled back" in f.action for f in examine(store, repair=True))
    assert not store.journal_path.exists()


def test_doctor_advice_matches_what_git_has(store: Store) -> None:
    folder = store.root / "sessions/s1/goal"
    from statedump.models import Goal

    store.add("s1", Goal(id="g", title="committed"))
    (folder / "g.yaml").write_text((folder / "g.yaml").read_text().replace("committed", "edited by hand"))
    (folder / "new.yaml").write_text("id: new\nkind: goal\ntitle: t\nstatus: active\n")
    out = CliRunner().invoke(main, ["doctor", "--store", str(store.root)]).output
    assert "g.yaml: record file changed since its last commit" in out and "git checkout --" in out
    assert "new.yaml: record file never committed" in out
