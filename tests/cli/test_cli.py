"""The CLI: each command's happy path, and bad input -> one line, exit 2, store untouched."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helpers import Cli, git, snapshot


def test_add_with_flags_fields_and_links(cli: Cli) -> None:
    r = cli(
        "add",
        "discovery",
        "--title",
        "FP8 KV scale defaults to 1.0",
        "--source",
        "msg 6008",
        "--tag",
        "kv-cache",
        "--field",
        "category=risk",
    )
    assert r.exit_code == 0, r.output
    assert "discovery fp8-kv-scale-defaults-to-1-0 added" in r.output
    r = cli(
        "add", "decision", "--id", "bf16-kv-cache", "--title", "BF16 KV", "--status", "accepted",
        "--field", "choice=--kv-cache-dtype bf16", "--field", "tradeoffs=[{aspect: KV capacity, before: 3.15M, after: 1.57M, unit: tokens}]",
        "--link", "evidence:fp8-kv-scale-defaults-to-1-0",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    shown = json.loads(cli("show", "bf16-kv-cache", "--json").output)
    assert shown["choice"] == "--kv-cache-dtype bf16"
    assert shown["links"]["evidence"] == ["fp8-kv-scale-defaults-to-1-0"]
    assert shown["tradeoffs"][0]["after"] == "1.57M"


def test_add_from_yaml_file_and_stdin(cli: Cli, tmp_path: Path) -> None:
    f = tmp_path / "rec.yaml"
    f.write_text("id: cuda\ntitle: CUDA 13.0.1\nname: CUDA\nversion: 13.0.1\n")
    assert cli("add", "component", "--from", str(f)).exit_code == 0
    r = cli("add", "reference", "--from", "-", input="title: gist\nurl: https://example.org/g\n")
    assert r.exit_code == 0, r.output
    listed = json.loads(cli("list", "--json").output)
    assert [x["id"] for x in listed] == ["cuda", "gist"]


def test_add_and_edit_through_the_editor(cli: Cli, tmp_path: Path) -> None:
    editor = tmp_path / "ed.py"
    editor.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[1])\nt = p.read_text()\n"
        "t = t.replace('title: \\n', 'title: From the editor\\n') if 'title: \\n' in t else t.replace('status: todo', 'status: done')\n"
        "p.write_text(t)\n"
    )
    env = {"EDITOR": f"{sys.executable} {editor}"}
    r = cli("add", "task", env=env)
    assert r.exit_code == 0, r.output
    assert "task from-the-editor added" in r.output
    r = cli("edit", "from-the-editor", env=env)
    assert r.exit_code == 0, r.output
    assert json.loads(cli("show", "from-the-editor", "--json").output)["status"] == "done"


def test_status_list_filters_and_show(cli: Cli) -> None:
    cli("add", "task", "--id", "t1", "--title", "Benchmark to 1024", "--status", "todo")
    cli("add", "task", "--id", "t2", "--title", "Calibrate FP8 scales", "--status", "proposed")
    assert cli("status", "t1", "done").exit_code == 0
    out = cli("list", "--kind", "task", "--status", "done").output
    assert "t1" in out and "t2" not in out
    assert "t2" in cli("list", "--grep", "fp8").output
    assert "title: Benchmark to 1024" in cli("show", "t1").output
    log = git(cli.root, "log", "-1", "--format=%s")
    assert log.strip() == "task: status done t1"


def test_session_commands(cli: Cli) -> None:
    r = cli("session", "new", "s2", "--title", "Second", "--model", "m", "--hardware", "h", "--agent", "a")
    assert r.exit_code == 0, r.output
    data = json.loads(cli("sessions", "--json").output)
    assert [s["id"] for s in data] == ["s1", "s2"]


def test_validate_reports_each_problem_and_exits_2(cli: Cli) -> None:
    folder = cli.root / "sessions/s1/discovery"
    folder.mkdir(parents=True)
    (folder / "bad.yaml").write_text("id: bad\nkind: discovery\ntitle: t\nstatus: nope\n")
    (folder / "dangling.yaml").write_text("id: dangling\nkind: discovery\ntitle: t\nstatus: confirmed\nlinks:\n  evidence: [ghost]\n")
    (cli.root / "sessions/s1/goal").mkdir()
    (cli.root / "sessions/s1/goal/dangling.yaml").write_text("id: dangling\nkind: goal\ntitle: t\nstatus: active\n")
    r = cli("validate")
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert any("bad.yaml: field 'status'" in line for line in lines)
    assert any("link evidence -> 'ghost'" in line for line in lines)
    assert any("duplicate id 'dangling'" in line for line in lines)


BAD_ARGS = [
    (["add", "goal", "--id", "../x", "--title", "t"], "is not safe"),
    (["add", "goal", "--id", "a/b", "--title", "t"], "is not safe"),
    (["add", "goal", "--id", "CON", "--title", "t"], "is not safe"),
    (["add", "goal", "--id", "x" * 80, "--title", "t"], "is not safe"),
    (["add", "goal", "--title", "t", "--status", "finished"], "field 'status'"),
    (["add", "goal", "--title", "t", "--field", "colour=red"], "field 'colour': unknown field"),
    (["add", "benchmark", "--title", "t", "--field", "concurrency=lots"], "field 'concurrency'"),
    (["add", "discovery", "--title", "t", "--link", "evidence:ghost"], "no such record"),
    (["add", "discovery", "--title", "t", "--link", "causes:x"], "is not REL:ID"),
    (["add", "discovery", "--title", "t", "--field", "novalue"], "is not key=value"),
    (["add", "discovery", "--body", "no title"], "needs a title"),
    (["add", "goal", "--from", "/nonexistent.yaml"], "no such file"),
    (["show", "ghost"], "no record 'ghost'"),
    (["status", "ghost", "done"], "no record 'ghost'"),
    (["render", "-s", "ghost"], "no session 'ghost'"),
    (["render", "--at", "no-such-rev"], "no commit named"),
]


@pytest.mark.parametrize(("args", "needle"), BAD_ARGS, ids=lambda a: " ".join(a) if isinstance(a, list) else None)
def test_bad_arguments_one_line_exit_2_nothing_changed(cli: Cli, args: list[str], needle: str) -> None:
    before = snapshot(cli.root)
    r = cli(*args)
    assert r.exit_code == 2, r.output
    assert needle in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert "Traceback" not in r.output
    assert snapshot(cli.root) == before


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"title: [unclosed\n", "malformed YAML"),
        (b"!!python/object/apply:os.system ['id']\n", "unsupported YAML tag"),
        (b"title: a\x00b\n", "NUL bytes"),
        (b"title: \xff\n", "not valid UTF-8"),
        (b"a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n", "aliases"),
        (b"", "expected a mapping"),
        (b"title: t\nkind: goal\n", "is 'goal', not 'discovery'"),
    ],
)
def test_bad_from_file_one_line_exit_2_nothing_changed(cli: Cli, tmp_path: Path, content: bytes, needle: str) -> None:
    f = tmp_path / "in.yaml"
    f.write_bytes(content)
    before = snapshot(cli.root)
    r = cli("add", "discovery", "--from", str(f))
    assert r.exit_code == 2, r.output
    assert (needle in r.output and str(f) in r.output) or needle in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert snapshot(cli.root) == before


def test_from_a_directory_is_refused(cli: Cli, tmp_path: Path) -> None:
    r = cli("add", "goal", "--from", str(tmp_path))
    assert r.exit_code == 2 and "found a folder" in r.output


def test_invalid_edit_in_editor_changes_nothing(cli: Cli, tmp_path: Path) -> None:
    cli("add", "goal", "--id", "g", "--title", "t")
    editor = tmp_path / "ed.py"
    editor.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[1])\np.write_text(p.read_text().replace('status: active', 'status: bogus'))\n"
    )
    before = snapshot(cli.root)
    r = cli("edit", "g", env={"EDITOR": f"{sys.executable} {editor}"})
    assert r.exit_code == 2 and "field 'status'" in r.output
    assert snapshot(cli.root) == before


def test_no_store_is_one_clear_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from statedump.cli import main

    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["list"])
    assert r.exit_code == 2
    assert "no statedump store here" in r.output and "statedump init" in r.output


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
