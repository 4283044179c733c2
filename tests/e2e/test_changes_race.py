"""Read-modify-write under the store lock: concurrent changes to one record all land.

Issue 18, item 1: `edit` and `status` read the record before taking the lock, so
`statedump edit t --body X & statedump status t done &` lost one of the two changes in 19 of
20 rounds while both reported success. These run the real CLI in real processes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from helpers import git

from statedump.core.store.store import Store
from statedump.models import Task
from statedump.services.changes import set_status, update


def _statedump(store: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "STATEDUMP_STORE": str(store)}
    return subprocess.Popen([sys.executable, "-m", "statedump", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_twenty_rounds_of_concurrent_edit_and_status_lose_nothing(store: Store) -> None:
    store.add("s1", Task(id="t", title="Benchmark at 1024", status="todo"))
    for n in range(20):
        body = f"round {n}: measured at concurrency 1024"
        procs = [_statedump(store.root, "edit", "t", "--body", body, "--source", f"msg {n}"), _statedump(store.root, "status", "t", "done")]
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, out + err
        record = store.get("s1", "t")
        assert (record.body, record.status) == (body, "done"), f"round {n} lost a change"
        reset = _statedump(store.root, "status", "t", "todo")
        assert reset.wait(timeout=120) == 0
    assert git(store.root, "status", "--porcelain") == ""


def test_threads_of_one_process_take_turns(store: Store) -> None:
    # The MCP server runs tool calls in worker threads over one Store: the same guarantee.
    store.add("s1", Task(id="t", title="t", status="todo"))
    errors: list[BaseException] = []

    def run(fn: object, *args: object) -> None:
        try:
            fn(*args)  # type: ignore[operator]
        except BaseException as err:
            errors.append(err)

    threads = [
        threading.Thread(target=run, args=(update, store, "s1", "t", {"body": f"from thread {i}", "tags": [f"x{i}"]})) for i in range(4)
    ]
    threads.append(threading.Thread(target=run, args=(set_status, store, "s1", "t", "in-progress")))
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    assert store.get("s1", "t").status == "in-progress"
    # Five commits, one per change: none was merged into another or lost.
    log = git(store.root, "log", "--format=%s", "-5").split("\n")
    assert sum(line == "task: edit t" for line in log) == 4 and "task: status in-progress t" in log
