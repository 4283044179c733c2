"""Concurrent writers: real processes adding to one store at once never lose or clash."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import git

from statedump.core.store.store import Store
from statedump.services.validate import validate_session

DRIVER = """
import sys
from statedump.cli import main
store, worker, n, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
failures = 0
for i in range(n):
    args = ["add", "discovery", "--store", store, "--title", f"finding {i} from worker {worker}"]
    if mode == "explicit":
        args += ["--id", f"w{worker}-{i}"]
    else:
        # Every worker asks for titles that make the same id, so ids are made up concurrently
        # (the very same title twice is refused, naming the record that has it).
        args[5] = "the same finding" + "!" * (i + 1) + "?" * int(worker)
    try:
        main(args, standalone_mode=False)
    except SystemExit as e:
        failures += bool(e.code)
print("failures", failures)
"""


def test_four_processes_fifty_adds_each(store: Store, tmp_path: Path) -> None:
    before = int(git(store.root, "rev-list", "--count", "HEAD"))
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    modes = ["explicit", "explicit", "same-title", "same-title"]
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(store.root), str(w), "50", mode], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for w, mode in enumerate(modes)
    ]
    outputs = [p.communicate(timeout=300) for p in procs]
    for (out, err), p in zip(outputs, procs, strict=True):
        assert p.returncode == 0, err
        assert "failures 0" in out, out + err
        assert "lock" not in err.lower() and "fatal" not in err.lower(), err
    records = store.load("s1").records
    assert len(records) == 200
    assert len({r.id for r in records}) == 200
    assert int(git(store.root, "rev-list", "--count", "HEAD")) == before + 200
    assert git(store.root, "status", "--porcelain") == ""
    assert validate_session(store, "s1") == []
    same = sorted(r.id for r in records if r.id.startswith("the-same-finding"))
    assert len(same) == 100 and "the-same-finding" in same and "the-same-finding-100" in same
