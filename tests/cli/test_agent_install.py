"""`statedump agent install|uninstall|status` on configs that already hold other hooks and servers.

The existing files are written the way people write them (indents of 2, 4 and tabs, TOML
comments, a hooks file on one line); the round trip must give them back byte for byte.
"""

from __future__ import annotations

import json
import subprocess
import sys
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


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "statedump", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_uninstall_never_removes_the_project_folder_or_above(tmp_path: Path) -> None:
    project = tmp_path / "x" / "y" / "proj"
    project.mkdir(parents=True)
    (tmp_path / "x" / "y" / "proj" / ".opencode").mkdir()  # there before: stays
    for agent in ("claude-code", "codex", "opencode"):
        assert _cli(project, "agent", "install", agent).returncode == 0
    assert (project / ".claude" / "settings.json").exists() and (project / ".opencode" / "plugins" / "statedump.js").exists()
    for agent in ("claude-code", "codex", "opencode"):
        r = _cli(project, "agent", "uninstall", agent)
        assert r.returncode == 0, r.stderr
    assert project.is_dir(), "uninstall removed the project folder"
    assert sorted(p.name for p in project.iterdir()) == [".opencode"]  # the folders install made went, not this one


def test_a_budget_below_the_resume_minimum_is_refused(tmp_path: Path) -> None:
    from statedump.services.report.resume import MIN_BUDGET

    r = _cli(tmp_path, "agent", "install", "claude-code", "--budget", str(MIN_BUDGET - 1))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "--budget" in r.stderr and str(MIN_BUDGET) in r.stderr and "Traceback" not in r.stderr
    assert list(tmp_path.iterdir()) == []
    assert _cli(tmp_path, "agent", "install", "claude-code", "--budget", str(MIN_BUDGET)).returncode == 0


def test_a_dir_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    r = _cli(tmp_path, "agent", "install", "codex", "--dir", str(tmp_path / "typo" / "nonexist"))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "nonexist" in r.stderr and "no such folder" in r.stderr
    assert not (tmp_path / "typo").exists()


def test_install_keeps_the_users_layout(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / ".claude").mkdir(parents=True)
    settings = (
        '{\n  "permissions": {"allow": ["Bash(ls:*)", "Read(*)"], "deny": []},\n  "env": {"A": "1"},\n'
        '  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]\n  }\n}\n'
    )
    mcp = '{"mcpServers": {"github": {"command": "gh-mcp", "args": ["--stdio"]}}}\n'
    opencode = '{\n\t"$schema": "https://opencode.ai/config.json",\n\t"mcp": {\n\t\t"other": {"type": "local", "command": ["other-mcp", "-v"]}\n\t}\n}\n'
    (root / ".claude" / "settings.json").write_text(settings, encoding="utf-8")
    (root / ".mcp.json").write_text(mcp, encoding="utf-8")
    (root / "opencode.json").write_text(opencode, encoding="utf-8")
    run("agent", "install", "claude-code", "--dir", str(root))
    run("agent", "install", "opencode", "--dir", str(root))
    text = (root / ".claude" / "settings.json").read_text(encoding="utf-8")
    assert '  "permissions": {"allow": ["Bash(ls:*)", "Read(*)"], "deny": []},\n  "env": {"A": "1"},\n' in text
    # An array written on one line stays on one line, with our group added to it.
    assert (
        '    "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}, {"hooks": [{"type": "command", "command": "statedump hook Stop'
        in text
    )
    assert json.loads(text)["hooks"]["Stop"][1]["hooks"][0]["command"].startswith("statedump hook Stop")
    one_line = (root / ".mcp.json").read_text(encoding="utf-8")
    assert one_line.count("\n") == 1 and one_line.startswith(
        '{"mcpServers": {"github": {"command": "gh-mcp", "args": ["--stdio"]}, "statedump"'
    )
    tabs = (root / "opencode.json").read_text(encoding="utf-8")
    assert '\t\t"other": {"type": "local", "command": ["other-mcp", "-v"]},\n\t\t"statedump": {\n\t\t\t"type": "local",' in tabs
    run("agent", "uninstall", "claude-code", "--dir", str(root))
    run("agent", "uninstall", "opencode", "--dir", str(root))
    assert (root / ".claude" / "settings.json").read_text(encoding="utf-8") == settings
    assert (root / ".mcp.json").read_text(encoding="utf-8") == mcp
    assert (root / "opencode.json").read_text(encoding="utf-8") == opencode


def test_status_reads_the_store_the_installed_hooks_name(tmp_path: Path) -> None:
    from statedump.core.store.store import Store

    store = Store.init(tmp_path / "elsewhere" / "store").root
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    for agent in ("claude-code", "opencode"):
        assert _cli(project, "agent", "install", agent, "--store", str(store)).returncode == 0
        report = json.loads(_cli(project, "agent", "status", "--json").stdout)
        assert report["store"] == str(store.resolve()), agent
        assert "(none found" not in _cli(project, "agent", "status").stdout
        _cli(project, "agent", "uninstall", agent)
