"""Shared fixtures: real git stores in tmp_path, the CLI run in-process, a fixed clock.

The helpers the tests import (paths, `isolate`, `golden`, `git`, `snapshot`, `Cli`) are in
helpers.py; this file holds only fixtures."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import Cli, isolate
from hypothesis import settings

from statedump.core.store.store import Store
from statedump.services.demo import build_demo

# In CI the property tests run a fixed sequence of examples, so a submission never fails
# by the luck of the draw; on a developer's machine they keep exploring.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    isolate(monkeypatch, tmp_path_factory.mktemp("home"))


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """A new store with one session `s1`."""
    st = Store.init(tmp_path / "store")
    from statedump.models import Session

    st.create_session(Session(id="s1", title="Test session", model="test-model"))
    return st


@pytest.fixture
def cli(store: Store) -> Cli:
    return Cli(store.root)


@pytest.fixture(scope="session")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The demo store, built once per test run, on the real clock. Tests must not write to it."""
    root = tmp_path_factory.mktemp("demo") / "store"
    with pytest.MonkeyPatch.context() as mp:
        isolate(mp, tmp_path_factory.mktemp("demohome"), now=None)
        build_demo(root)
    yield root


@pytest.fixture
def demo_copy(demo_root: Path, tmp_path: Path) -> Path:
    """A private copy of the demo store that a test may change."""
    dest = tmp_path / "democopy"
    subprocess.run(["git", "clone", "-q", str(demo_root), str(dest)], check=True)
    return dest
