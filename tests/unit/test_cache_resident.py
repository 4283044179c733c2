"""A resident process (the MCP server) does not unpickle a session's record cache again while
the cache file is unchanged, and still sees what another process wrote."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks import generate
from statedump.core.errors import StatedumpError
from statedump.core.store import cache as parsecache


def test_an_unchanged_cache_file_is_not_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsecache, "RACY_NS", 0)
    built = generate.build_store(tmp_path / "s", 40)
    loads: list[int] = []

    class Counting(parsecache._Unpickler):
        def load(self) -> Any:
            loads.append(1)
            return super().load()

    monkeypatch.setattr(parsecache, "_Unpickler", Counting)
    first = parsecache.load_state(built.root, built.session)[1]  # parses and writes the cache
    parsecache._RESIDENT.clear()  # as a new process would find it
    second = parsecache.load_state(built.root, built.session)[1]
    third = parsecache.load_state(built.root, built.session)[1]
    assert len(loads) == 1  # the second read unpickled; the third reused it
    assert first == second == third

    # Another process changes a record (and so the cache file): this one sees the change.
    path = next((built.root / "sessions" / built.session / "task").glob("*.yaml"))
    path.write_text(re.sub(r"^title: .*$", "title: Changed elsewhere", path.read_text(), count=1, flags=re.M))
    code = "import sys; from statedump.core.store import cache; cache.RACY_NS = 0; cache.load_state(__import__('pathlib').Path(sys.argv[1]), sys.argv[2])"
    subprocess.run([sys.executable, "-c", code, str(built.root), built.session], check=True)
    fourth = parsecache.load_state(built.root, built.session)[1]
    assert len(loads) == 2
    assert any(r.title == "Changed elsewhere" for r in fourth)


def test_files_too_recent_for_the_cache_are_compared_by_their_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every file counts as just written: none goes into the stat-keyed cache.
    monkeypatch.setattr(parsecache, "RACY_NS", 10**18)
    built = generate.build_store(tmp_path / "s", 12)
    parses: list[str] = []
    real = parsecache.parse_record

    def counting(data: bytes, rel: str) -> Any:
        parses.append(rel)
        return real(data, rel)

    monkeypatch.setattr(parsecache, "parse_record", counting)
    first = parsecache.load_state(built.root, built.session)[1]
    assert len(parses) == len(first)
    assert parsecache.load_state(built.root, built.session)[1] == first
    assert len(parses) == len(first)  # the same bytes: no parse
    # The same size and the same moment, other bytes: parsed again, never served stale.
    path = next((built.root / "sessions" / built.session / "task").glob("*.yaml"))
    text = path.read_text()
    path.write_text(re.sub(r"^title: .", "title: X", text, count=1, flags=re.M))
    assert len(path.read_text()) == len(text)
    changed = parsecache.load_state(built.root, built.session)[1]
    assert len(parses) == len(first) + 1
    assert any(r.title.startswith("X") for r in changed)
    # A bad file is still the error it was, in the session's order.
    path.write_text("title: [unclosed\n")
    with pytest.raises(StatedumpError, match=str(path.name)):
        parsecache.load_state(built.root, built.session)


def test_a_file_that_settles_is_neither_parsed_nor_rewritten_into_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built = generate.build_store(tmp_path / "s", 12)
    monkeypatch.setattr(parsecache, "RACY_NS", 0)
    parsecache.load_state(built.root, built.session)  # everything cached
    path = next((built.root / "sessions" / built.session / "task").glob("*.yaml"))
    path.write_text(re.sub(r"^title: .*$", "title: Written a moment ago", path.read_text(), count=1, flags=re.M))
    monkeypatch.setattr(parsecache, "RACY_NS", 10**18)  # ... so it is too recent for the cache
    parses: list[str] = []
    writes: list[int] = []
    real_parse, real_write = parsecache.parse_record, parsecache._write
    monkeypatch.setattr(parsecache, "parse_record", lambda data, rel: parses.append(rel) or real_parse(data, rel))
    monkeypatch.setattr(parsecache, "_write", lambda p, e: writes.append(1) or real_write(p, e))
    assert any(r.title == "Written a moment ago" for r in parsecache.load_state(built.root, built.session)[1])
    assert len(parses) == 1
    monkeypatch.setattr(parsecache, "RACY_NS", 0)  # it has settled
    writes.clear()  # (the first read dropped the file's stale entry from the cache file)
    assert any(r.title == "Written a moment ago" for r in parsecache.load_state(built.root, built.session)[1])
    assert len(parses) == 1 and writes == []
    # A new process, without this one's memory, parses it and caches it.
    parsecache._RECENT.clear()
    assert any(r.title == "Written a moment ago" for r in parsecache.load_state(built.root, built.session)[1])
    assert writes == [1]
