"""The record cache gives exactly what parsing gives, and never serves a changed file or other models' records."""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

import pytest

from benchmarks import generate
from statedump.core import codec
from statedump.core.errors import StatedumpError
from statedump.core.store import cache as parsecache
from statedump.core.store.store import Store
from statedump.models import RecordBase


def _parsed(root: Path, session: str) -> list[RecordBase]:
    store = Store(root)
    return sorted(store.parse_files(store.record_files(session)), key=lambda r: r.id)


def _cached(root: Path, session: str) -> list[RecordBase]:
    return sorted(parsecache.load_state(root, session)[1], key=lambda r: r.id)


def _rewrite(path: Path, text: str) -> None:
    # As statedump writes: a new file renamed over the old one.
    tmp = path.with_name(".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Treat every file as settled, so files written by the test are cached at once."""
    monkeypatch.setattr(parsecache, "RACY_NS", 0)


def test_cached_records_equal_parsed_ones(tmp_path: Path, settled: None) -> None:
    built = generate.build_store(tmp_path / "s", 60)
    first = _cached(built.root, built.session)
    cache = parsecache.cache_path(built.root, built.session)
    assert cache is not None and cache.is_file()
    assert len(_opened(cache)["entries"]) == 60 + 1  # the records and session.yaml
    second = _cached(built.root, built.session)
    assert first == second == _parsed(built.root, built.session)
    # Same values, same types: the documents rendered from them are the same bytes.
    assert [codec.dump_record(r) for r in second] == [codec.dump_record(r) for r in first]
    assert [type(r.at.tzinfo) for r in second if r.at] == [type(r.at.tzinfo) for r in _parsed(built.root, built.session) if r.at]


def test_a_changed_file_is_parsed_again(tmp_path: Path, settled: None) -> None:
    built = generate.build_store(tmp_path / "s", 12)
    _cached(built.root, built.session)
    goal = built.root / "sessions" / built.session / "goal" / f"{built.ids['goal'][0]}.yaml"
    text = goal.read_text()
    old_title = next(line for line in text.splitlines() if line.startswith("title: "))
    _rewrite(goal, text.replace(old_title, "title: " + "X" * (len(old_title) - 7)))
    records = {r.id: r for r in _cached(built.root, built.session)}
    assert records[built.ids["goal"][0]].title == "X" * (len(old_title) - 7)
    goal.unlink()
    assert built.ids["goal"][0] not in {r.id for r in _cached(built.root, built.session)}
    meta = built.root / "sessions" / built.session / "session.yaml"
    text = meta.read_text()
    old_title = next(line for line in text.splitlines() if line.startswith("title: "))
    _rewrite(meta, text.replace(old_title, "title: Y"))
    assert parsecache.load_state(built.root, built.session)[0].title == "Y"


def test_files_changed_just_now_are_not_cached(tmp_path: Path) -> None:
    built = generate.build_store(tmp_path / "s", 5)
    assert len(_cached(built.root, built.session)) == 5
    cache = parsecache.cache_path(built.root, built.session)
    assert cache is not None and not cache.exists()


def test_a_broken_cache_is_ignored_and_a_bad_file_still_fails(tmp_path: Path, settled: None) -> None:
    built = generate.build_store(tmp_path / "s", 8)
    cache = parsecache.cache_path(built.root, built.session)
    assert cache is not None
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(b"\x80\x05not a pickle")
    assert _cached(built.root, built.session) == _parsed(built.root, built.session)
    task = next((built.root / "sessions" / built.session).glob("*/*.yaml"))
    _rewrite(task, task.read_text().replace("title: ", "title: [unclosed "))
    with pytest.raises(StatedumpError) as err:
        parsecache.load_state(built.root, built.session)
    assert str(task.relative_to(built.root)) in str(err.value)


def _sealed(data: dict[str, Any]) -> bytes:
    """A cache file as statedump writes it: sealed with this user's key."""
    body = pickle.dumps(data)
    key = parsecache._secret()
    assert key is not None
    return parsecache._seal(key, body) + body


def _opened(cache: Path) -> Any:
    return pickle.loads(cache.read_bytes()[parsecache.SEAL :])


def _forged(tmp_path: Path, title: str) -> tuple[generate.Built, Path, dict[str, Any]]:
    """A store whose cache holds one record with another title than its file: (store, cache, cache data)."""
    built = generate.build_store(tmp_path / "s", 8)
    _cached(built.root, built.session)
    cache = parsecache.cache_path(built.root, built.session)
    assert cache is not None
    saved = _opened(cache)
    rel, (key, record) = next((r, e) for r, e in saved["entries"].items() if not r.endswith("session.yaml"))
    saved["entries"][rel] = (key, record.model_copy(update={"title": title}))
    return built, cache, saved


def test_a_cache_made_by_other_models_is_not_used(tmp_path: Path, settled: None) -> None:
    # A record as some other version of the models left it: it must not be served.
    built, cache, saved = _forged(tmp_path, "served from a stale cache")
    cache.write_bytes(_sealed({**saved, "models": "other models"}))
    assert "served from a stale cache" not in {r.title for r in _cached(built.root, built.session)}
    # The same entry under the right digest is served: the digest is what kept it out.
    cache.write_bytes(_sealed({**saved, "models": parsecache.models_digest()}))
    assert "served from a stale cache" in {r.title for r in _cached(built.root, built.session)}


def test_the_digest_follows_the_model_source(tmp_path: Path) -> None:
    import shutil

    import statedump.models

    copy = tmp_path / "models"
    shutil.copytree(Path(statedump.models.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    import yaml

    import statedump.core.codec

    extra = (Path(statedump.core.codec.__file__),)
    salt = Path(str(yaml.__file__)).read_text(encoding="utf-8")  # PyYAML's __init__, which names its version
    assert parsecache.source_digest(copy, *extra, salt=salt) == parsecache.models_digest()
    kinds = copy / "kinds.py"
    kinds.write_text(kinds.read_text() + "\n# a changed model\n")
    assert parsecache.source_digest(copy, *extra, salt=salt) != parsecache.models_digest()
    assert parsecache.source_digest(copy, *extra, salt="another PyYAML") != parsecache.source_digest(copy, *extra, salt=salt)


class _Planted:
    """What an attacker would leave in a cache: unpickling it runs a command."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def test_a_planted_cache_is_never_run(tmp_path: Path, settled: None) -> None:
    built = generate.build_store(tmp_path / "s", 6)
    cache = parsecache.cache_path(built.root, built.session)
    assert cache is not None
    cache.parent.mkdir(parents=True, exist_ok=True)
    marker = tmp_path / "ran"
    cache.write_bytes(_sealed({"models": parsecache.models_digest(), "entries": {"x": _Planted(marker)}}))
    assert _cached(built.root, built.session) == _parsed(built.root, built.session)
    assert not marker.exists()
    # ...and the cache is rewritten with records only.
    assert "x" not in _opened(cache)["entries"]


def test_a_cache_owned_by_someone_else_is_ignored(tmp_path: Path, settled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    built, cache, saved = _forged(tmp_path, "left by another user")
    cache.write_bytes(_sealed(saved))
    assert "left by another user" in {r.title for r in _cached(built.root, built.session)}
    cache.write_bytes(_sealed(saved))
    # As seen by another user (git, too, refuses a repository someone else owns):
    monkeypatch.setattr(os, "geteuid", lambda: os.stat(cache).st_uid + 1)
    assert "left by another user" not in {r.title for r in _cached(built.root, built.session)}


def test_a_planted_cache_naming_the_right_models_is_not_served(tmp_path: Path, settled: None) -> None:
    # Unpickled records skip validation: a cache not sealed with this user's key (one planted
    # in a tarball, a shared folder) is ignored even when its digest matches.
    built, cache, saved = _forged(tmp_path, "planted, never validated")
    cache.write_bytes(pickle.dumps(saved))
    assert "planted, never validated" not in {r.title for r in _cached(built.root, built.session)}
    forged_seal = bytes(parsecache.SEAL) + pickle.dumps(saved)
    cache.write_bytes(forged_seal)
    assert "planted, never validated" not in {r.title for r in _cached(built.root, built.session)}


def test_a_fifo_as_cache_is_ignored_not_waited_on(tmp_path: Path, settled: None) -> None:
    import subprocess
    import sys

    built = generate.build_store(tmp_path / "s", 4)
    cache = parsecache.cache_path(built.root, built.session)
    assert cache is not None
    cache.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(cache)
    # In a child, with a deadline: before the fix, opening the FIFO blocked for ever.
    done = subprocess.run(
        [sys.executable, "-m", "statedump", "list", "--store", str(built.root), "-s", built.session],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
