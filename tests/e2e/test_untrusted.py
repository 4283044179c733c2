"""Untrusted text: Rich markup, ANSI escapes and control characters in records are shown literally
by every command that prints to a terminal."""

from __future__ import annotations

import json

import pytest
from helpers import Cli

NASTY = "[bold red]x[/] \x1b[31mred\x1b[0m \x07bell \x1b]8;;http://evil\x1b\\link"


@pytest.fixture
def nasty_cli(cli: Cli) -> Cli:
    assert (
        cli(
            "add", "instruction", "--id", "ask", "--title", NASTY, "--field", f"quote={json.dumps(NASTY)}", "--field", "standing=true"
        ).exit_code
        == 0
    )
    assert cli("add", "discovery", "--id", "d", "--title", NASTY, "--body", NASTY, "--link", "prompted_by:ask").exit_code == 0
    assert (
        cli(
            "add", "command", "--id", "launch", "--title", NASTY, "--field", "text=python -m sglang.launch_server --kv-cache-dtype bf16"
        ).exit_code
        == 0
    )
    r = cli(
        "add", "decision", "--id", "bf16", "--title", NASTY, "--status", "accepted", "--field", f"choice={json.dumps(NASTY)}",
        "--field", "enforces=[{command: launch, flag: --kv-cache-dtype, value: bf16}]", "--link", "evidence:d", "--link", "prompted_by:ask",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    return cli


@pytest.mark.parametrize(
    "args",
    [
        ["render"],
        ["render", "--format", "terminal"],
        ["show", "d"],
        ["list"],
        ["why", "bf16"],
        ["handoff"],
        ["handoff", "--format", "terminal"],
        ["resume"],
        ["log", "d"],
        ["validate"],
        ["sessions"],
    ],
    ids=" ".join,
)
def test_terminal_output_never_carries_control_characters(nasty_cli: Cli, args: list[str]) -> None:
    r = nasty_cli(*args, env={"COLUMNS": "200"})
    assert r.exit_code in (0, 1), r.output
    assert "\x1b" not in r.output and "\x07" not in r.output
    if args[0] in ("render", "show", "list", "why", "handoff"):
        assert "[bold red]x[/]" in r.output or "\\[bold red\\]x\\[/\\]" in r.output
        # ESC shown as a visible symbol (or, in YAML, as YAML's own escape)
        # (a body's `[` is escaped in Markdown: no text in it can start a link)
        assert "\u241b[31mred" in r.output or "\u241b\\[31mred" in r.output or (args[0] == "show" and "\\e[31mred" in r.output)


def test_json_output_keeps_the_text_exactly(nasty_cli: Cli) -> None:
    data = json.loads(nasty_cli("show", "d", "--json").output)
    assert data["title"] == " ".join(NASTY.split()) or data["title"] == NASTY
    assert data["body"] == NASTY
