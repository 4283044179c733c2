"""The bad-input corpus (tests/corpus/cases.yaml): one clear line, exit 2, the store untouched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from helpers import CORPUS, snapshot

from statedump.cli import main
from statedump.core.store.store import Store

CASES: list[dict[str, Any]] = yaml.safe_load((CORPUS / "cases.yaml").read_text(encoding="utf-8"))


def _input(case: dict[str, Any], tmp_path: Path) -> Path | None:
    if case.get("generate") == "big-line":
        path = tmp_path / "big.yaml"
        with open(path, "wb") as fh:
            fh.write(b"title: ")
            chunk = b"x" * (1 << 20)
            for _ in range(50):
                fh.write(chunk)
            fh.write(b"\n")
        return path
    if case.get("generate") == "deep-json":  # an opencode export nested 100,000 deep
        path = tmp_path / "deep.json"
        path.write_text('{"info": {"id": "x"}, "messages": [' + "[" * 100_000 + "]" * 100_000 + "]}")
        return path
    if "file" in case:
        return (CORPUS / "files" / case["file"]).resolve()
    return None


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 40


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_bad_input(case: dict[str, Any], store: Store, tmp_path: Path) -> None:
    runner = CliRunner()
    env = {"STATEDUMP_STORE": str(store.root)}
    for setup in case.get("setup", []):
        assert runner.invoke(main, setup, env=env).exit_code == 0
    for rel, text in case.get("setup_files", {}).items():
        (store.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (store.root / rel).write_text(text)
    for rel in case.get("setup_links", []):  # a record file outside the store, linked from inside
        outside = tmp_path / "outside" / Path(rel).name
        outside.parent.mkdir(exist_ok=True)
        outside.write_text(f"id: {Path(rel).stem}\nkind: {Path(rel).parent.name}\ntitle: outside\nstatus: confirmed\n")
        (store.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (store.root / rel).symlink_to(outside)
    path = _input(case, tmp_path)
    args = [a.replace("{file}", str(path)) for a in case["args"]]
    before = snapshot(store.root)
    if "stdin" in case:  # an endless stream (/dev/zero): the command must read a bounded amount
        with open(case["stdin"], "rb") as stdin:
            result = runner.invoke(main, args, env=env, input=stdin)
    else:
        result = runner.invoke(main, args, env=env)
    assert result.exit_code == case.get("exit", 2), result.output
    lines = result.output.strip().splitlines()
    assert case["expect"] in result.output, result.output
    if case["args"][0] != "validate":
        assert len(lines) == 1, result.output
    assert "Traceback" not in result.output
    if path is not None and "{file}" in " ".join(case["args"]) and path.is_file():
        assert str(path) in result.output or "arguments" in result.output or "<stdin>" in result.output
    assert snapshot(store.root) == before


def test_bom_and_crlf_are_accepted_and_written_canonically(store: Store) -> None:
    # Editors on Windows write both; refusing them would punish the user for their editor.
    path = CORPUS / "files" / "bom-crlf.yaml"
    result = CliRunner().invoke(main, ["add", "discovery", "--from", str(path)], env={"STATEDUMP_STORE": str(store.root)})
    assert result.exit_code == 0, result.output
    written = (store.root / "sessions/s1/discovery/written-on-windows.yaml").read_bytes()
    assert not written.startswith(b"\xef\xbb\xbf") and b"\r" not in written
