"""Layering: the core imports neither Textual nor the MCP SDK, and `--help` stays light."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CORE = [
    "statedump",
    "statedump.models",
    "statedump.core.codec",
    "statedump.core.store.store",
    "statedump.core.render",
    "statedump.core.render.terminal",
    "statedump.services.validate",
    "statedump.services.records",
]


def _loaded(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_core_loads_neither_textual_nor_mcp() -> None:
    mods = _loaded("\n".join(f"import {m}" for m in CORE))
    assert not any(m == "textual" or m.startswith("textual.") for m in mods)
    assert not any(m == "mcp" or m.startswith("mcp.") for m in mods)


def test_help_loads_no_heavy_modules() -> None:
    code = "import sys\nfrom statedump.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    mods = _loaded(code)
    for heavy in ("textual", "mcp", "git", "pydantic", "yaml", "rich.markdown"):
        assert heavy not in mods, heavy


def test_import_linter_contracts_hold() -> None:
    exe = Path(sys.executable).parent / "lint-imports"
    r = subprocess.run([str(exe), "--no-cache"], capture_output=True, text=True, cwd=Path(__file__).resolve().parent.parent)
    assert r.returncode == 0, r.stdout + r.stderr


def test_log_of_a_record_loads_neither_pydantic_yaml_nor_gitpython(demo_root: Path) -> None:
    # `statedump log ID` is a git log and little else; its target is 1.5x a bare `git log -- <file>`.
    code = (
        "import sys\nfrom statedump.cli import main\n"
        f"try:\n    main(['log', 'bf16-kv-cache', '--store', {str(demo_root)!r}])\nexcept SystemExit as e:\n    assert not e.code, e.code"
    )
    mods = _loaded(code)
    for heavy in ("pydantic", "yaml", "git", "markdown_it", "rich"):
        assert heavy not in mods, heavy
