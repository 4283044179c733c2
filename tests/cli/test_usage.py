"""Mistyped commands, kinds, statuses, options, sessions and ids: one line, exit 2, the nearest
valid name, and nothing changed."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import Cli, snapshot

CASES = [
    (["rendr"], "statedump: no such command 'rendr': did you mean 'render'? (see `statedump --help`)"),
    (["add", "tsk", "--title", "x"], "statedump add: KIND 'tsk' is not valid: did you mean 'task'? (see `statedump add --help`)"),
    (
        ["list", "--kind", "zzzz"],
        "statedump list: --kind 'zzzz' is not valid: use one of: goal, instruction, discovery, compat, benchmark, decision, task, command, component, file, reference (see `statedump list --help`)",
    ),
    (
        ["list", "--kind", "decison"],
        "statedump list: --kind 'decison' is not valid: did you mean 'decision'? (see `statedump list --help`)",
    ),
    (
        ["render", "--format", "termnal"],
        "statedump render: --format 'termnal' is not valid: did you mean 'terminal'? (see `statedump render --help`)",
    ),
    (
        ["import", "claude", "x.jsonl"],
        "statedump import: FORMAT 'claude' is not valid: did you mean 'claude-code'? (see `statedump import --help`)",
    ),
    (
        ["render", "--formt", "markdown"],
        "statedump render: No such option '--formt' (Did you mean one of: '--format', '--out'?) (see `statedump render --help`)",
    ),
    (["show"], "statedump show: Missing argument 'RECORD_ID' (see `statedump show --help`)"),
    (
        ["status", "bf16-kv-cache", "acceptd"],
        "statedump: STATUS: 'acceptd' is not a decision status (did you mean 'accepted'? use one of: proposed, accepted, superseded, rejected)",
    ),
    (
        ["show", "bf16-kv-cach"],
        "statedump: bf16-kv-cach: no record 'bf16-kv-cach' in session 'qwen35-397b-a17b-nvfp4' (did you mean 'bf16-kv-cache'? `statedump list` shows the ids)",
    ),
    (
        ["list", "-s", "qwen35-397b-a17b-nvfp"],
        "statedump: -s: no session 'qwen35-397b-a17b-nvfp' (did you mean 'qwen35-397b-a17b-nvfp4'? `statedump sessions` lists them)",
    ),
    (["list", "-s", "zzz"], "statedump: -s: no session 'zzz' (`statedump sessions` lists them)"),  # nothing near: no guess
]


@pytest.mark.parametrize(("args", "line"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_a_mistake_is_one_line_with_the_nearest_name(demo_root: Path, args: list[str], line: str) -> None:
    before = snapshot(demo_root)
    r = Cli(demo_root)(*args)
    assert r.exit_code == 2
    assert r.stderr == line + "\n"
    assert r.stdout == "" and snapshot(demo_root) == before


def test_help_and_version_still_exit_0(demo_root: Path) -> None:
    cli = Cli(demo_root)
    assert cli("--help").exit_code == 0 and "Commands" in cli("--help").stdout
    assert cli("render", "--help").exit_code == 0
    assert cli("--version").exit_code == 0
