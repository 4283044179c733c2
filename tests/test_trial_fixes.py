"""What a new user's first hour turned up: each behaviour pinned by a test."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from conftest import Cli, git, snapshot

from statedump.cli import main
from statedump.core.store.store import Store


def test_no_editor_without_a_terminal(cli: Cli) -> None:
    # CliRunner's stdin is not a terminal; with no $EDITOR set, asking for one is refused.
    r = cli("add", "task", env={"EDITOR": "", "VISUAL": ""})
    assert r.exit_code == 2
    assert "no terminal to open an editor" in r.output and "--from FILE" in r.output


def test_empty_title_is_refused_and_empty_body_clears(cli: Cli) -> None:
    assert cli("add", "task", "--id", "t", "--title", "x", "--body", "some text").exit_code == 0
    before = snapshot(cli.root)
    r = cli("edit", "t", "--title", "")
    assert r.exit_code == 2 and "field 'title'" in r.output
    assert snapshot(cli.root) == before
    assert cli("edit", "t", "--body", "").exit_code == 0
    assert "body" not in cli("show", "t").output


def test_field_errors_speak_plainly_and_point_at_the_fields(cli: Cli) -> None:
    r = cli("add", "task", "--title", "x", "--field", "priority=P1")
    assert "field 'priority': must be a whole number" in r.output and "statedump schema --show task" in r.output
    r = cli("add", "decision", "--title", "x")
    assert "field 'choice': is required (pass --field choice=...)" in r.output
    r = cli("add", "goal", "--title", "x", "--field", "pririty=1")
    assert "unknown field (a goal has: id, kind, title" in r.output
    shown = cli("schema", "--show", "decision")
    assert shown.exit_code == 0 and "choice" in shown.output and "required" in shown.output


def test_list_refuses_a_status_no_kind_has(cli: Cli) -> None:
    r = cli("list", "--status", "nope")
    assert r.exit_code == 2 and "has status 'nope'" in r.output
    assert cli("list", "--kind", "task", "--status", "done").exit_code == 0


def test_a_decision_its_command_contradicts_needs_review(demo_copy: Path) -> None:
    env = {"STATEDUMP_STORE": str(demo_copy)}
    runner = CliRunner()
    text = (demo_copy / "sessions/qwen35-397b-a17b-nvfp4/command/launch-server.yaml").read_text()
    import yaml

    command = yaml.safe_load(text)["text"].replace("--kv-cache-dtype bf16", "--kv-cache-dtype fp8_e4m3")
    assert runner.invoke(main, ["edit", "launch-server", "--field", f"text={command!r}"], env=env).exit_code == 0
    why = runner.invoke(main, ["why", "kv-cache-dtype"], env=env)
    assert "enforcement-contradicted" in why.output
    assert "No review needed" not in why.output
    handoff = runner.invoke(main, ["handoff"], env=env)
    assert "enforcement-contradicted" in handoff.output


def test_doctor_advice_matches_what_git_has(store: Store) -> None:
    folder = store.root / "sessions/s1/goal"
    from statedump.models import Goal

    store.add("s1", Goal(id="g", title="committed"))
    (folder / "g.yaml").write_text((folder / "g.yaml").read_text().replace("committed", "edited by hand"))
    (folder / "new.yaml").write_text("id: new\nkind: goal\ntitle: t\nstatus: active\n")
    out = CliRunner().invoke(main, ["doctor", "--store", str(store.root)]).output
    assert "g.yaml: record file changed since its last commit" in out and "git checkout --" in out
    assert "new.yaml: record file never committed" in out


def test_bench_compare_with_nothing_in_common_is_an_error(cli: Cli) -> None:
    cli("add", "benchmark", "--id", "a", "--title", "a", "--field", "metrics=[{name: output_throughput, value: 1, unit: tok/s}]")
    cli("add", "benchmark", "--id", "b", "--title", "b", "--field", "metrics=[{name: ttft, value: 1, unit: ms}]")
    r = cli("bench", "compare", "a", "b")
    assert r.exit_code == 2 and "no metric in common" in r.output


def test_a_second_dump_of_an_unchanged_session_is_refused(cli: Cli) -> None:
    cli("add", "goal", "--id", "g", "--title", "t")
    assert cli("dump", "-m", "first").exit_code == 0
    r = cli("dump", "-m", "again")
    assert r.exit_code == 2 and "nothing changed since dump/s1/1" in r.output
    assert git(cli.root, "tag").split() == ["dump/s1/1"]
