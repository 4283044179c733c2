"""Shared fixtures: real git stores in tmp_path, the CLI run in-process, a fixed clock."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import settings

from statedump.cli import main
from statedump.core.store.store import Store
from statedump.services.demo import build_demo

FIXED_NOW = "2026-03-15T12:00:00Z"

# In CI the property tests run a fixed sequence of examples, so a submission never fails
# by the luck of the draw; on a developer's machine they keep exploring.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    # No user git config, no editor, no store from the environment, a fixed clock.
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("STATEDUMP_STORE", raising=False)
    monkeypatch.setenv("STATEDUMP_NOW", FIXED_NOW)
    for var in (
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_DATE",
    ):
        monkeypatch.delenv(var, raising=False)


GOLDEN = Path(__file__).parent / "golden"
_SHA = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{10}(?:[0-9a-f]{30})?(?![0-9A-Za-z])")


def golden(name: str, text: str, mask_shas: bool = False) -> None:
    """Compare `text` with tests/golden/NAME (STATEDUMP_UPDATE_GOLDEN=1 rewrites it).

    `mask_shas` replaces commit ids by `<sha>`, for output that names commits of a test's own store.
    """
    if mask_shas:
        text = _SHA.sub("<sha>", text)
    path = GOLDEN / name
    if os.environ.get("STATEDUMP_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def git(root: Path, *args: str) -> str:
    """Run the git CLI in `root` and return its output (for assertions independent of GitPython)."""
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def snapshot(root: Path) -> tuple[str, str, dict[str, bytes]]:
    """HEAD, the porcelain status, and every file's bytes outside .git: to prove nothing changed."""
    files = {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and ".git" not in p.parts}
    return git(root, "rev-parse", "HEAD").strip(), git(root, "status", "--porcelain"), files


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """A new store with one session `s1`."""
    st = Store.init(tmp_path / "store")
    from statedump.models import Session

    st.create_session(Session(id="s1", title="Test session", model="test-model"))
    return st


class Cli:
    """The statedump CLI run in-process against one store."""

    def __init__(self, root: Path):
        self.root = root
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
        return self.runner.invoke(
            main, list(args), input=input, env={"STATEDUMP_STORE": str(self.root), **(env or {})}, catch_exceptions=False
        )


@pytest.fixture
def cli(store: Store) -> Cli:
    return Cli(store.root)


@pytest.fixture(scope="session")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The demo store, built once per test run. Tests must not write to it."""
    root = tmp_path_factory.mktemp("demo") / "store"
    old = os.environ.copy()
    os.environ.pop("STATEDUMP_NOW", None)
    home = tmp_path_factory.mktemp("demohome")
    os.environ["GIT_CONFIG_GLOBAL"] = str(home / ".gitconfig")
    try:
        build_demo(root)
    finally:
        os.environ.clear()
        os.environ.update(old)
    yield root


@pytest.fixture
def demo_copy(demo_root: Path, tmp_path: Path) -> Path:
    """A private copy of the demo store that a test may change."""
    dest = tmp_path / "democopy"
    subprocess.run(["git", "clone", "-q", str(demo_root), str(dest)], check=True)
    return dest
