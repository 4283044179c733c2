"""Every option that writes a file or a folder for the user (`--out`, `--dir`), driven into a
missing folder, a file standing where a folder should be, and a folder nobody may write: one line,
exit 2, nothing left behind (no tag, no temporary file, the store unchanged)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import Cli, git, snapshot

# (command line with {out} where the path goes, whether the path is a folder)
WRITERS = [
    ("render --out {out}", False),
    ("handoff --out {out}", False),
    ("dump -m checkpoint --out {out}", False),
    ("export adr --dir {out}", True),
    ("export madr --dir {out}", True),
    ("schema --dir {out}", True),
]


def _missing(tmp: Path) -> Path:
    return tmp / "no" / "such" / "folder" / "x"


def _under_a_file(tmp: Path) -> Path:
    (tmp / "plain").write_text("a file\n")
    return tmp / "plain" / "x"


def _unwritable(tmp: Path) -> Path:
    if os.geteuid() != 0:
        folder = tmp / "ro"
        folder.mkdir()
        folder.chmod(0o555)
        return folder / "x"
    # root writes through permission bits; sysfs refuses new files to everyone.
    if not Path("/sys/kernel").is_dir():
        pytest.skip("no folder this root process cannot write")
    return Path("/sys/statedump-test-x")


PLACES: dict[str, Callable[[Path], Path]] = {"missing folder": _missing, "under a file": _under_a_file, "unwritable": _unwritable}


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize(("line", "is_folder"), WRITERS, ids=[w[0].split(" {")[0].replace(" ", "-") for w in WRITERS])
def test_a_refused_write_is_one_line_and_leaves_nothing(demo_copy: Path, tmp_path: Path, line: str, is_folder: bool, place: str) -> None:
    cli = Cli(demo_copy)
    assert cli("add", "task", "--title", "Something new to dump").exit_code == 0  # so `dump` has a change to tag
    target = PLACES[place](tmp_path)
    out = target if is_folder else target.with_suffix(".md")
    before, tags, listing = snapshot(demo_copy), git(demo_copy, "tag"), sorted(p.name for p in tmp_path.iterdir())
    r = cli(*line.format(out=out).split())
    if is_folder and place == "missing folder":
        # `--dir` makes its folder and the ones above it, as `mkdir -p` and `adr init` do.
        assert r.exit_code == 0 and out.is_dir(), r.output
        return
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("statedump: ") and "cannot write" in lines[0], r.stderr
    assert "Traceback" not in r.output
    assert snapshot(demo_copy) == before and git(demo_copy, "tag") == tags  # no dump tag without its file
    assert sorted(p.name for p in tmp_path.iterdir()) == listing  # no temporary file, no half-made folder


def test_a_write_that_fails_midway_keeps_the_old_file_and_no_temporary(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from statedump.core import output

    target = tmp_path / "state.md"
    target.write_text("the old document\n")

    def full(self: Path, *args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device", str(self))

    monkeypatch.setattr(output.Path, "write_text", full)
    r = Cli(demo_root)("render", "--out", str(target))
    monkeypatch.undo()
    assert r.exit_code == 2 and "the disk is full" in r.stderr
    assert target.read_text() == "the old document\n" and sorted(p.name for p in tmp_path.iterdir()) == ["state.md"]
