"""A cold read of a big session on two cores gives exactly what a read in order gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from statedump.core.store.store import Store
from statedump.models import Discovery

SCRIPT = """
import json, os, sys
from pathlib import Path
from statedump.core.store import parallel, reader
from statedump.core.errors import StatedumpError
parallel.MIN_FILES = 2
if os.environ.get("NO_FORK"):
    parallel.MIN_FILES = 10**9
items = [(rel, e.path) for rel, e in reader.scan_records(Path(sys.argv[1]), "s1")]
forked = []
real_fork = os.fork
def counting_fork():
    forked.append(1)
    return real_fork()
os.fork = counting_fork
try:
    records = parallel.read_many(items)
    print(json.dumps({"forked": len(forked), "records": [r.model_dump(mode="json") for r in records]}))
except StatedumpError as err:
    print(json.dumps({"forked": len(forked), "error": str(err)}))
"""


def _read(root: Path, fork: bool) -> dict[str, object]:
    env = None if fork else {"NO_FORK": "1", "PATH": ""}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(root)], capture_output=True, text=True, check=True, env=env)
    out: dict[str, object] = json.loads(done.stdout)
    return out


def _fill(store: Store, count: int) -> None:
    for n in range(count):
        store.add("s1", Discovery(id=f"d{n:03d}", title=f"finding {n}", body=f"body {n}\nline two"))


def test_the_forked_read_equals_the_read_in_order(store: Store) -> None:
    _fill(store, 12)
    forked, in_order = _read(store.root, fork=True), _read(store.root, fork=False)
    assert forked["forked"] == 1 and in_order["forked"] == 0
    assert forked["records"] == in_order["records"]
    assert len(forked["records"]) == 12  # type: ignore[arg-type]


def test_a_bad_file_in_the_childs_half_raises_the_same_first_error(store: Store) -> None:
    _fill(store, 12)
    folder = store.root / "sessions" / "s1" / "discovery"
    (folder / "d010.yaml").write_text("id: d010\ntitle: [unclosed\n", encoding="utf-8")
    (folder / "d011.yaml").write_text("id: someone-else\ntitle: x\n", encoding="utf-8")
    forked, in_order = _read(store.root, fork=True), _read(store.root, fork=False)
    assert "error" in forked and forked["error"] == in_order["error"]
    assert "d010.yaml" in str(forked["error"])


def test_many_records_dumped_on_two_cores_are_the_files_one_core_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    from statedump.core import codec, forking
    from statedump.core.store import parallel
    from statedump.services.demo import load_example

    records = list(load_example().records) * 3  # the example's every kind, three times over
    monkeypatch.setattr(parallel, "MIN_DUMPS", 2)
    monkeypatch.setattr(forking, "_cores", lambda: 2)  # (a one-core machine forks too, here)
    forked: list[int] = []
    real_fork = os.fork

    def counting_fork() -> int:
        forked.append(1)
        return real_fork()

    monkeypatch.setattr(os, "fork", counting_fork)
    assert parallel.dump_many(records) == [codec.dump_record(r).encode() for r in records]
    assert forked == [1]
    # A child that fails (here: every dump in it raises) leaves its half to be made here.
    calls: list[int] = []
    real_dump = parallel._dump

    def failing_in_the_child(part: list[Any]) -> list[bytes]:
        calls.append(os.getpid())
        if os.getpid() != parent:
            raise RuntimeError("boom in the child")
        return real_dump(part)

    parent = os.getpid()
    monkeypatch.setattr(parallel, "_dump", failing_in_the_child)
    assert parallel.dump_many(records) == [codec.dump_record(r).encode() for r in records]
    assert calls.count(parent) == 2  # its own half, then the child's
