"""`statedump agent install|uninstall|status` on configs that already hold other hooks and servers.

The existing files are written the way people write them (indents of 2, 4 and tabs, TOML
comments, a hooks file on one line); the round trip must give them back byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from statedump.cli import main
from statedump.services.agents.configs import codex_refusal

CLAUDE_SETTINGS = """{
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./audit.sh", "timeout": 5}]}
        ],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}]
    }
}
"""
MCP_JSON = '{\n  "mcpServers": {\n    "github": {"command": "gh-mcp", "args": ["--stdio"]}\n  }\n}\n'
CODEX_TOML = """# my Codex settings
model = "gpt-5-codex"   # the default model

[mcp_servers.docs]
command = "docs-mcp"
args = ["serve"]

[profiles.fast]
model = "gpt-5-mini"
"""
CODEX_HOOKS = '{"description": "team hooks", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}'
OPENCODE_JSON = '{\n\t"$schema": "https://opencode.ai/config.json",\n\t"mcp": {"other": {"type": "local", "command": ["other-mcp"]}}\n}\n'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / ".claude").mkdir()
    (root / ".codex").mkdir()
    (root / ".claude" / "settings.json").write_text(CLAUDE_SETTINGS, encoding="utf-8")
    (root / ".mcp.json").write_text(MCP_JSON, encoding="utf-8")
    (root / ".codex" / "config.toml").write_text(CODEX_TOML, encoding="utf-8")
    (root / ".codex" / "hooks.json").write_text(CODEX_HOOKS, encoding="utf-8")
    (root / "opencode.json").write_text(OPENCODE_JSON, encoding="utf-8")
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and ".git" not in p.parts}


def run(*args: str) -> str:
    r = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


@pytest.mark.parametrize("agent", ["claude-code", "codex", "opencode"])
def test_round_trip_is_byte_identical(project: Path, agent: str) -> None:
    before = snapshot(project)
    first = run("agent", "install", agent, "--dir", str(project))
    assert "updated" in first
    after = snapshot(project)
    assert after != before
    assert all(p in after for p in before)  # nothing of the user's went away
    files = [line for line in first.splitlines() if not line.startswith("note:")]
    assert run("agent", "install", agent, "--dir", str(project)).count("unchanged") == len(files)
    assert snapshot(project) == after  # a second install changes nothing
    backups = [p for p in after if p.endswith(".statedump-backup")]
    assert backups and all(after[b] == before[b.removesuffix(".statedump-backup")] for b in backups)
    run("agent", "uninstall", agent, "--dir", str(project))
    assert snapshot(project) == before


def test_what_install_adds_and_leaves(project: Path) -> None:
    run("agent", "install", "claude-code", "--dir", str(project), "--guard", "deny")
    settings = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert settings["permissions"] == {"allow": ["Bash(ls:*)"]}
    pre = settings["hooks"]["PreToolUse"]
    assert pre[0]["hooks"][0]["command"] == "./audit.sh"
    assert pre[1] == {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "statedump hook PreToolUse --agent claude-code --guard deny", "timeout": 10}],
    }
    assert [g["matcher"] for g in settings["hooks"]["SessionStart"]] == ["startup", "compact|resume|clear"]
    assert set(settings["hooks"]) == {"PreToolUse", "SessionStart", "PreCompact", "PostCompact", "SessionEnd", "Stop"}
    servers = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]
    assert servers == {"github": {"command": "gh-mcp", "args": ["--stdio"]}, "statedump": {"command": "statedump", "args": ["mcp"]}}
    # Changing the guard replaces our hook in its place; turning it off takes it out.
    run("agent", "install", "claude-code", "--dir", str(project), "--guard", "warn")
    pre = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))["hooks"]["PreToolUse"]
    assert [h["command"] for g in pre for h in g["hooks"]] == ["./audit.sh", "statedump hook PreToolUse --agent claude-code --guard warn"]
    run("agent", "install", "claude-code", "--dir", str(project), "--guard", "off")
    pre = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))["hooks"]["PreToolUse"]
    assert [h["command"] for g in pre for h in g["hooks"]] == ["./audit.sh"]
    status = run("agent", "status", "--dir", str(project))
    assert "claude-code (project): hooks PostCompact, PreCompact, SessionEnd, SessionStart, Stop; MCP server; guard off" in status


def test_codex_files_stay_acceptable_to_codex(project: Path) -> None:
    run("agent", "install", "codex", "--dir", str(project))
    hooks = json.loads((project / ".codex" / "hooks.json").read_text(encoding="utf-8"))
    assert codex_refusal(hooks) is None
    assert set(hooks) == {"description", "hooks"} and "$schema" not in hooks
    assert set(hooks["hooks"]) == {"Stop", "PreCompact", "SessionStart", "PreToolUse"}
    toml = (project / ".codex" / "config.toml").read_text(encoding="utf-8")
    ours = '[mcp_servers.statedump]\ncommand = "statedump"\nargs = ["mcp"]\n\n'
    assert ours in toml
    assert toml.replace(ours, "") == CODEX_TOML  # comments, order and spacing kept


def test_a_hooks_file_codex_would_refuse_is_never_written(project: Path) -> None:
    path = project / ".codex" / "hooks.json"
    refused = '{"$schema": "https://example.invalid/codex-hooks.json", "hooks": {}}\n'
    path.write_text(refused, encoding="utf-8")
    r = CliRunner().invoke(main, ["agent", "install", "codex", "--dir", str(project)])
    assert r.exit_code == 2
    assert "Codex refuses this hooks file" in r.output and "$schema" in r.output and "hooks.json" in r.output
    assert "Traceback" not in r.output
    assert path.read_text(encoding="utf-8") == refused
    assert not (project / ".codex" / "hooks.json.statedump-backup").exists()


def test_install_into_an_empty_project_and_out_again(tmp_path: Path) -> None:
    root = tmp_path / "bare"
    (root / ".git").mkdir(parents=True)
    for agent in ("claude-code", "codex", "opencode"):
        run("agent", "install", agent, "--dir", str(root))
    assert (root / ".opencode" / "plugins" / "statedump.js").read_text(encoding="utf-8").startswith("// statedump-plugin v1")
    for agent in ("claude-code", "codex", "opencode"):
        run("agent", "uninstall", agent, "--dir", str(root))
    assert sorted(p.name for p in root.iterdir()) == [".git"]


def test_a_foreign_server_of_the_same_name_is_left_alone(project: Path) -> None:
    mcp = project / ".mcp.json"
    mine = '{"mcpServers": {"statedump": {"command": "/opt/other/statedump-fork", "args": ["serve"]}}}\n'
    mcp.write_text(mine, encoding="utf-8")
    out = run("agent", "install", "claude-code", "--dir", str(project))
    assert "already there" in out
    assert mcp.read_text(encoding="utf-8") == mine
    run("agent", "uninstall", "claude-code", "--dir", str(project))
    assert mcp.read_text(encoding="utf-8") == mine


def test_user_scope_writes_under_home(tmp_path: Path) -> None:
    import os

    home = Path(os.environ["HOME"])
    run("agent", "install", "claude-code", "--scope", "user", "--dir", str(tmp_path))
    assert "statedump hook PreCompact" in (home / ".claude" / "settings.json").read_text(encoding="utf-8")
    assert json.loads((home / ".claude.json").read_text(encoding="utf-8"))["mcpServers"]["statedump"]["args"] == ["mcp"]
    run("agent", "uninstall", "claude-code", "--scope", "user", "--dir", str(tmp_path))
    assert not (home / ".claude.json").exists()


def test_broken_json_is_one_clear_line(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.write_text('{"hooks": {,}}', encoding="utf-8")
    r = CliRunner().invoke(main, ["agent", "install", "claude-code", "--dir", str(project)])
    assert r.exit_code == 2 and "settings.json" in r.output and "not valid JSON" in r.output
    assert path.read_text(encoding="utf-8") == '{"hooks": {,}}'
