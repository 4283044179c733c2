"""`statedump demo`: the example replayed into a real git history, one commit per version of a record."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT, git

from statedump.cli import main
from statedump.core.errors import StatedumpError
from statedump.core.render import render_markdown
from statedump.services.demo import EXAMPLE, REPLAY_FILE, example_dir, load_example, load_replay


def test_one_commit_per_version_in_time_order_with_trailers(demo_root: Path) -> None:
    example = load_example()
    lives = load_replay(example)
    subjects = git(demo_root, "log", "--reverse", "--format=%s").splitlines()
    assert subjects[:2] == ["statedump: init store", f"session: new {EXAMPLE}"]
    adds = [s for s in subjects[2:] if ": add " in s]
    assert sorted(adds) == sorted(f"{r.kind}: add {r.id}" for r in example.records)  # each record added once
    assert len(subjects) - 2 == len(example.records) + sum(len(v) - 1 for v in lives.values())
    dates = git(demo_root, "log", "--reverse", "--format=%aI").splitlines()[2:]
    assert dates == sorted(dates)  # replayed in the order it happened
    trailers = git(demo_root, "log", "-1", "--format=%(trailers)", "--", f"sessions/{EXAMPLE}/decision/bf16-kv-cache.yaml")
    assert f"Statedump-Session: {EXAMPLE}" in trailers and "Statedump-Record: decision/bf16-kv-cache" in trailers


def test_each_change_commit_carries_the_source_of_that_change(demo_root: Path) -> None:
    lives = load_replay(load_example())
    expected = {}
    for versions in lives.values():
        rec = versions[0].record
        if len(versions) > 1:
            expected[f"{rec.kind}/{rec.id}"] = [v.source for v in versions[1:]]
    found: dict[str, list[str]] = {}
    log = git(
        demo_root,
        "log",
        "--reverse",
        "--format=%(trailers:key=Statedump-Record,valueonly)|%(trailers:key=Statedump-Action,valueonly)|%(trailers:key=Statedump-Source,valueonly)%x00",
    )
    for entry in log.split("\0"):
        parts = [p.strip() for p in entry.split("|")]
        if len(parts) == 3 and parts[1] != "add" and parts[0]:
            found.setdefault(parts[0], []).append(parts[2])
    assert found == expected
    assert found["command/launch-server"] == ["msg 5854 onwards (backend flags)", "msg 6024"]


def test_log_of_the_launch_command_shows_its_three_versions(demo_root: Path) -> None:
    r = CliRunner().invoke(main, ["log", "launch-server", "--store", str(demo_root), "--json"])
    assert r.exit_code == 0, r.output
    entries = json.loads(r.output)
    assert [(e["action"], e["source"]) for e in entries] == [
        ("edit", "msg 6024"),
        ("edit", "msg 5854 onwards (backend flags)"),
        ("add", "before msg 5843 (exact message not given)"),
    ]
    path = f"sessions/{EXAMPLE}/command/launch-server.yaml"
    first, second, third = (git(demo_root, "show", f"{e['commit']}:{path}") for e in reversed(entries))
    assert "--moe-runner-backend" not in first and "--fp4-gemm-backend" not in first  # the default backends
    assert "--moe-runner-backend flashinfer_cutlass" in second and "--fp4-gemm-backend flashinfer_cudnn" in second
    assert "--kv-cache-dtype" not in second and "--kv-cache-dtype bf16" in third


def test_dump_tags_at_the_two_state_dumps(demo_root: Path) -> None:
    tags = git(demo_root, "tag").split()
    assert tags == [f"dump/{EXAMPLE}/1", f"dump/{EXAMPLE}/2"]
    assert "msg 5856" in git(demo_root, "tag", "-n1", f"dump/{EXAMPLE}/1")
    assert "msg 6026" in git(demo_root, "tag", "-n1", f"dump/{EXAMPLE}/2")


def test_render_now_and_at_the_first_dump(demo_root: Path) -> None:
    runner = CliRunner()
    now = runner.invoke(main, ["render", "--store", str(demo_root)])
    assert now.exit_code == 0, now.output
    assert now.output == render_markdown(load_example())
    assert now.output == (ROOT / "tests" / "golden" / "example-state.md").read_text(encoding="utf-8")  # the final state, unchanged
    first = runner.invoke(main, ["render", "--store", str(demo_root), "--at", f"dump/{EXAMPLE}/1"])
    assert first.exit_code == 0, first.output
    assert "bf16-kv-cache" not in first.output and "--kv-cache-dtype bf16" not in first.output
    assert "## Goal" in first.output and "msg 5852" in first.output
    second = runner.invoke(main, ["render", "--store", str(demo_root), "--at", f"dump/{EXAMPLE}/2"])
    assert second.output == now.output


def test_the_first_dump_holds_nothing_from_after_it(demo_root: Path) -> None:
    first = CliRunner().invoke(main, ["render", "--store", str(demo_root), "--at", f"dump/{EXAMPLE}/1"]).output
    # The dump is msg 5856: no later message is named, and the records stand as they did then.
    later = [n for n in map(int, re.findall(r"msg (\d{4})", first)) if n > 5856]
    assert later == []
    assert "| sgl-kernel | 0.3.21 " in first and "| installed | `sgl-kernel-0.3.21`" in first  # not yet replaced
    assert "replaced" not in first and "resolved" not in first
    assert "— risk · confirmed · msg 5843–5844 · `garbage-output-nan`" in first  # the NaN risk still open
    assert "in-progress · msg 5843–5854 · `fix-nan-output`" in first
    assert "python -m sglang.launch_server \\\n  --model-path" in first and "flashinfer_cutlass \\" not in first
    assert "reducing model accuracy" not in first and "silently lowers model accuracy" not in first
    assert "one-off · active · msg 5852" in first and "Carried out" not in first  # the gist's advice not yet applied


def test_diff_between_the_dumps_lists_changed_records(demo_root: Path) -> None:
    r = CliRunner().invoke(main, ["diff", f"dump/{EXAMPLE}/1", f"dump/{EXAMPLE}/2", "--store", str(demo_root)])
    assert r.exit_code == 0, r.output
    for line in (
        "~ command launch-server:",
        "~ discovery garbage-output-nan:",
        "~ component sgl-kernel-0.3.21: sgl-kernel 0.3.21 (prebuilt)\n    status: installed -> replaced",
        "~ task fix-nan-output:",
    ):
        assert line in r.output
    assert "    status: confirmed -> resolved" in r.output
    assert r.output.rstrip().endswith("47 added, 0 removed, 7 changed")


def test_a_replay_that_contradicts_the_record_files_is_one_clear_error(tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / EXAMPLE
    shutil.copytree(example_dir(), folder)
    text = (folder / REPLAY_FILE).read_text(encoding="utf-8")
    (folder / REPLAY_FILE).write_text(text.replace("  - at: 2026-03-14T17:20:00Z\n    source: msg 6024\n", ""), encoding="utf-8")
    with pytest.raises(StatedumpError) as err:
        load_replay(load_example(folder), folder)
    assert "command/launch-server" in str(err.value.where) and "the last version is the file" in err.value.message
    (folder / REPLAY_FILE).write_text(text.replace("  command/launch-server:\n", "  command/no-such-command:\n"), encoding="utf-8")
    with pytest.raises(StatedumpError) as err:
        load_replay(load_example(folder), folder)
    assert "command/no-such-command" in str(err.value.where)


def test_demo_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("x")
    r = CliRunner().invoke(main, ["demo", str(tmp_path)])
    assert r.exit_code == 2 and "not empty" in r.output
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


@pytest.mark.slow
def test_demo_works_from_an_installed_wheel_outside_the_checkout(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(ROOT)], check=True
    )
    wheel = next(wheels.glob("statedump-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert f"statedump/example/{EXAMPLE}/decision/bf16-kv-cache.yaml" in names
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)], check=True)
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GIT_CONFIG_GLOBAL": str(tmp_path / "gc")}
    out = subprocess.run([sys.executable, "-m", "statedump", "demo", "x"], cwd=work, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "## Goal" in out.stdout and "--kv-cache-dtype bf16" in out.stdout
    where = subprocess.run(
        [sys.executable, "-c", "import statedump; print(statedump.__file__)"], cwd=work, env=env, capture_output=True, text=True
    )
    assert where.stdout.startswith(str(target))
