"""A cold read of a big session on two cores gives exactly what a read in order gives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
