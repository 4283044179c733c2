"""Layering: the folders are the layers (models <- core <- services <- faces), each module loads\nnothing above its own, an upward import breaks the contract, and `--help` stays light."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

PACKAGE = ROOT / "statedump"

# What each layer may never load, even lazily at import time: every layer above it, and the
# faces' frameworks. import-linter checks the static imports; this checks what really runs.
FACES = ["statedump.cli", "statedump.tui", "statedump.mcpserver", "textual", "mcp"]
ABOVE = {
    "models": ["statedump.core", "statedump.services", *FACES, "git", "yaml", "rich"],
    "core": ["statedump.services", *FACES],
    "services": FACES,
}


def _modules(layer: str) -> list[str]:
    out = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


LAYERED = [(layer, module) for layer in ABOVE for module in _modules(layer)]


def _loaded(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_every_module_is_in_a_layer() -> None:
    # A module at the package root would be in no layer: the folders are the layers.
    assert sorted(p.name for p in PACKAGE.glob("*.py")) == ["__init__.py", "__main__.py"]
    assert all(_modules(layer) for layer in ABOVE)


@pytest.mark.parametrize(("layer", "module"), LAYERED, ids=[m for _, m in LAYERED])
def test_a_module_loads_nothing_above_its_layer(layer: str, module: str) -> None:
    # One process per module, so that a leak names the module that leaks.
    mods = _loaded(f"import {module}")
    leaks = sorted(m for m in mods for above in ABOVE[layer] if m == above or m.startswith(above + "."))
    assert not leaks, f"{module} loads {leaks[:5]}"


def test_help_loads_no_heavy_modules() -> None:
    code = "import sys\nfrom statedump.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    mods = _loaded(code)
    for heavy in ("textual", "mcp", "git", "pydantic", "yaml", "rich.markdown"):
        assert heavy not in mods, heavy


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "lint-imports"
    return subprocess.run([str(exe), "--no-cache"], capture_output=True, text=True, cwd=cwd)


def test_import_linter_contracts_hold() -> None:
    r = _lint_imports(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize(
    ("module", "face"),
    [
        ("core/codec.py", "statedump.cli"),
        ("core/store/reader.py", "statedump.tui.app"),
        ("services/why.py", "statedump.cli"),
        ("models/kinds.py", "statedump.core.codec"),
    ],
)
def test_an_upward_import_breaks_the_layers_contract(tmp_path: Path, module: str, face: str) -> None:
    # On a scratch copy: the contract must fail when any lower module imports a layer above.
    shutil.copytree(PACKAGE, tmp_path / "statedump", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    with open(tmp_path / "statedump" / module, "a", encoding="utf-8") as fh:
        fh.write(f"\nimport {face}  # noqa\n")
    r = _lint_imports(tmp_path)
    dotted = "statedump." + module.removesuffix(".py").replace("/", ".")
    assert r.returncode != 0 and f"{dotted} -> " in r.stdout, r.stdout


def test_log_of_a_record_loads_neither_pydantic_yaml_nor_gitpython(demo_root: Path) -> None:
    # `statedump log ID` is a git log and little else; its target is 1.5x a bare `git log -- <file>`.
    code = (
        "import sys\nfrom statedump.cli import main\n"
        f"try:\n    main(['log', 'bf16-kv-cache', '--store', {str(demo_root)!r}])\nexcept SystemExit as e:\n    assert not e.code, e.code"
    )
    mods = _loaded(code)
    for heavy in ("pydantic", "yaml", "git", "markdown_it", "rich"):
        assert heavy not in mods, heavy
