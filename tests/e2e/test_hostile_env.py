"""A hostile environment: a full disk, a file-size limit, a read-only store, one owned by
someone else, a huge import, an endless stdin, no terminal; and a write in flight while
`dump` runs. Each is one line, exit 2 (or the command waits and succeeds), nothing left behind.

The full and read-only disks are real: a small tmpfs mounted for the test (skipped where
mounting is not allowed). The size limit is the kernel's (RLIMIT_FSIZE: EFBIG), the argument
limit too (RLIMIT_STACK bounds execve's argv). No fault is injected into statedump's code.
"""

from __future__ import annotations

import contextlib
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import Cli, git, snapshot

from statedump.core.store.store import Store
from statedump.models import Decision, Goal, Session


def _run(store: Path, *args: str, limit: tuple[int, int] | None = None, **kw: object) -> subprocess.CompletedProcess[str]:
    def limits() -> None:
        if limit is not None:
            resource.setrlimit(limit[0], (limit[1], limit[1]))

    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "statedump", *args, "--store", str(store)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limits,
        **kw,
    )


def _one_line(done: subprocess.CompletedProcess[str], status: int = 2) -> str:
    assert done.returncode == status, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    return done.stderr


def _snapshot(root: Path) -> tuple[str, str, dict[str, bytes]]:
    """`helpers.snapshot`, with a `git status` that writes no index (the disk may be full)."""
    status = subprocess.run(["git", "-C", str(root), "--no-optional-locks", "status", "--porcelain"], capture_output=True, check=True)
    files = {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and ".git" not in p.parts}
    return git(root, "rev-parse", "HEAD").strip(), status.stdout.decode(), files


def _leftovers(root: Path) -> list[str]:
    found = [str(p) for p in (root / "sessions").rglob(".*.tmp")]
    return found + [n for n in ("statedump-journal.json", "index.lock") if (root / ".git" / n).exists()]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    disk = tmp_path / "disk"
    disk.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(disk)], capture_output=True)
    if done.returncode:
        pytest.skip("mounting a tmpfs is not allowed here")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def _seeded(root: Path) -> Store:
    st = Store.init(root)
    st.create_session(Session(id="s1", title="On a small disk"))
    st.add("s1", Goal(id="g", title="A goal"))
    st.add("s1", Decision(id="kv", title="KV cache dtype", choice="bf16"))
    return st


def _fill(disk: Path) -> None:
    with open(disk / "filler", "wb") as fh, contextlib.suppress(OSError):
        while True:
            fh.write(b"\0" * 65536)
            fh.flush()


def test_a_full_disk_is_one_line_and_leaves_nothing_behind(small_disk: Path, tmp_path: Path) -> None:
    st = _seeded(small_disk / "store")
    doc = tmp_path / "state.md"
    doc.write_text("# S\n\n## Discoveries\n\n- " + "\n- ".join(f"finding {i}" for i in range(50)) + "\n")
    _fill(small_disk)
    before = _snapshot(st.root)
    for args in (
        ["add", "goal", "--title", "Another goal", "--body", "x" * 5000],
        ["edit", "g", "--body", "a new body " * 300],
        ["status", "g", "achieved"],
        ["import", "markdown", str(doc)],
        ["dump", "-m", "on a full disk"],
        ["session", "new", "s2", "--title", "Another session"],
    ):
        err = _one_line(_run(st.root, *args))
        assert "disk is full" in err and str(st.root) in err, (args, err)  # names what could not be written
        assert _snapshot(st.root) == before, args
        assert _leftovers(st.root) == [], args
        assert not (st.root / "sessions/s2").exists()
    # doctor itself, on the full disk: it looks without writing the index.
    report = _run(st.root, "doctor")
    assert report.returncode == 0 and report.stdout.strip() == "store is healthy", report.stderr
    assert _run(st.root, "doctor", "--repair").returncode == 0
    (small_disk / "filler").unlink()
    assert _run(st.root, "add", "goal", "--title", "Once there is room").returncode == 0


def test_a_read_only_store_is_one_line_and_reads_still_work(small_disk: Path) -> None:
    st = _seeded(small_disk / "store")
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    err = _one_line(_run(st.root, "add", "goal", "--title", "t"))
    assert "read-only file system" in err
    assert "A goal" in _run(st.root, "list").stdout
    assert _run(st.root, "log").returncode == 0


def test_a_file_size_limit_is_one_line_and_leaves_no_temp_file(store: Store, tmp_path: Path) -> None:
    doc = tmp_path / "state.md"
    doc.write_text("# S\n\n## Discoveries\n\n- " + "\n- ".join(f"finding {i} " + "y" * 300 for i in range(40)) + "\n")
    before = snapshot(store.root)
    for args in (["add", "discovery", "--title", "big", "--body", "x" * 6000], ["import", "markdown", str(doc)]):
        err = _one_line(_run(store.root, *args, limit=(resource.RLIMIT_FSIZE, 4096)))
        assert "file-size limit" in err or "File too large" in err, err
        assert snapshot(store.root) == before
        assert _leftovers(store.root) == []


def test_an_import_of_many_records_never_meets_the_argument_limit(store: Store, tmp_path: Path) -> None:
    # 4,000 paths are ~180 KB of arguments; a 512 KB stack limit caps execve at 128 KB, as
    # ~100,000 records exceed the usual 2 MB: the paths must reach git another way.
    doc = tmp_path / "many.md"
    doc.write_text("# Many\n\n## Discoveries\n\n" + "".join(f"- Finding number {i} about kernel {i * 7}\n" for i in range(4000)))
    done = _run(store.root, "import", "markdown", str(doc), limit=(resource.RLIMIT_STACK, 512 * 1024))
    assert done.returncode == 0, done.stderr
    assert len(git(store.root, "ls-files", "sessions/s1/discovery").split()) == 4000
    assert git(store.root, "status", "--porcelain") == ""


def test_add_from_an_endless_stdin_reads_a_bounded_amount(store: Store) -> None:
    with open("/dev/zero", "rb") as zero:
        err = _one_line(_run(store.root, "add", "discovery", "--from", "-", stdin=zero))
    assert "more than the 1048576-byte limit" in err


def test_the_tui_without_a_terminal_is_one_line_not_a_spin(store: Store) -> None:
    started = time.monotonic()
    err = _one_line(_run(store.root, "tui", stdin=subprocess.DEVNULL))
    assert "the TUI needs a terminal" in err and time.monotonic() - started < 60


_SLOW_WRITE = """
import sys, time
from pathlib import Path
from statedump.core.store.files import write_atomic
from statedump.core.store.store import Store
store = Store(Path(sys.argv[1]))
path = store.record_path("s1", "goal", "in-flight")
with store.lock():
    write_atomic(path, b"id: in-flight\\nkind: goal\\ntitle: In flight\\nstatus: active\\n")
    print("written", flush=True)
    time.sleep(1.5)  # a write between its file and its commit, as every write is for a moment
    store.git.commit([store.rel(path)], "goal: add in-flight")
"""


def test_dump_waits_for_a_write_in_flight(store: Store, tmp_path: Path) -> None:
    store.add("s1", Goal(id="g", title="A goal"))
    script = tmp_path / "slow.py"
    script.write_text(_SLOW_WRITE)
    writer = subprocess.Popen([sys.executable, str(script), str(store.root)], stdout=subprocess.PIPE, text=True)
    assert writer.stdout is not None and writer.stdout.readline().strip() == "written"
    r = Cli(store.root)("dump", "-m", "while a write is in flight")
    assert writer.wait() == 0
    assert r.exit_code == 0, r.output
    assert "In flight" in git(store.root, "show", "dump/s1/1:sessions/s1/goal/in-flight.yaml")


def test_session_new_refused_by_git_leaves_no_folder(store: Store) -> None:
    (store.root / ".git" / "index.lock").write_text("")  # git refuses every commit while it is there
    before = snapshot(store.root)
    r = Cli(store.root)("session", "new", "s2", "--title", "Refused")
    assert r.exit_code == 1 and len(r.output.strip().splitlines()) == 1, r.output
    assert "git refused the commit" in r.output
    assert not (store.root / "sessions/s2").exists()
    assert snapshot(store.root) == before


def test_nan_in_records_crashes_nothing(store: Store, tmp_path: Path) -> None:
    bench = "kind: benchmark\ntitle: {t}\nbaseline: {b}\nrequest_rate: .nan\nmetrics:\n- {{name: output_throughput, value: .nan, unit: tok/s}}\n"
    cli = Cli(store.root)
    for rid, base in (("b1", "true"), ("b2", "false")):
        (tmp_path / f"{rid}.yaml").write_text(f"id: {rid}\n" + bench.format(t=rid, b=base))
        assert cli("add", "benchmark", "--from", str(tmp_path / f"{rid}.yaml")).exit_code == 0
        assert cli("dump", "-m", rid).exit_code == 0
    for args in (
        ["resume"],
        ["resume", "--for", "claude"],
        ["export", "adr", "--dir", str(tmp_path / "adr")],
        ["bench", "compare", "b1", "b2"],
        ["bench", "compare", "b1", "b2", "--json"],
        ["diff", "dump/s1/1", "dump/s1/2", "--json"],
        ["list", "--json"],
        ["render"],
    ):
        r = cli(*args)
        # (`bench compare` exits 1 for a regression: a NaN throughput is not an improvement.)
        assert r.exit_code in ((0, 1) if args[0] == "bench" else (0,)), (args, r.output)
        assert "Traceback" not in r.output
