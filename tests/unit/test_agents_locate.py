"""The hooks find the store by the same rule as `Store.find`, without its imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from statedump.core.errors import StatedumpError
from statedump.core.store.store import Store
from statedump.services.agents.guardfile import same_target
from statedump.services.agents.locate import find_root


def _store_find(store: Path | None, cwd: Path) -> Path | None:
    try:
        return Store.find(store, cwd=cwd).root
    except StatedumpError:
        return None


def test_find_root_agrees_with_store_find(store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inner = store.root / "sessions" / "s1"
    plain = tmp_path / "plain"
    (plain / ".git").mkdir(parents=True)
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    for explicit, cwd in [(None, store.root), (None, inner), (None, plain), (None, nowhere), (store.root, nowhere), (plain, store.root)]:
        assert find_root(explicit, cwd) == _store_find(explicit, cwd), (explicit, cwd)
    monkeypatch.setenv("STATEDUMP_STORE", str(store.root))
    assert find_root(None, nowhere) == _store_find(None, nowhere) == store.root.resolve()


def test_the_guard_path_imports_no_pydantic() -> None:
    code = (
        "import sys\n"
        "from statedump.services.agents import events, guard, guardfile, hooklog, locate\n"
        "from statedump.services.ingest import launch\n"
        "print(sorted(m for m in ('pydantic', 'yaml', 'git') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize(
    ("target", "hardware", "same"),
    [
        ("SM120 (RTX PRO 6000 Blackwell)", "8x NVIDIA RTX PRO 6000 Blackwell (SM120), PCIe Gen5, no NVLink", True),
        ("H100 SXM", "8x NVIDIA RTX PRO 6000 Blackwell (SM120)", False),
        ("Blackwell", "8x NVIDIA RTX PRO 6000 Blackwell (SM120)", True),
        ("Hopper", "8x NVIDIA RTX PRO 6000 Blackwell (SM120)", False),
        ("anything", None, True),
    ],
)
def test_a_compat_cell_counts_on_its_own_target(target: str, hardware: str | None, same: bool) -> None:
    assert same_target(target, hardware) is same
