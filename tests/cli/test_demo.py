"""`statedump demo`: the example replayed into a real git history, one commit per record."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT, git

from statedump.cli import main
from statedump.core.render import render_markdown
from statedump.services.demo import EXAMPLE, load_example


def test_one_commit_per_record_in_scenario_order_with_trailers(demo_root: Path) -> None:
    example = load_example()
    subjects = git(demo_root, "log", "--reverse", "--format=%s").splitlines()
    assert subjects[:2] == ["statedump: init store", f"session: new {EXAMPLE}"]
    assert subjects[2:] == [f"{r.kind}: add {r.id}" for r in example.records]
    dates = git(demo_root, "log", "--reverse", "--format=%aI").splitlines()[2:]
    assert dates == [r.at.isoformat() for r in example.records if r.at]
    trailers = git(demo_root, "log", "-1", "--format=%(trailers)", "--", f"sessions/{EXAMPLE}/decision/bf16-kv-cache.yaml")
    assert f"Statedump-Session: {EXAMPLE}" in trailers and "Statedump-Record: decision/bf16-kv-cache" in trailers


def test_dump_tags_at_the_two_state_dumps(demo_root: Path) -> None:
    tags = git(demo_root, "tag").split()
    assert tags == [f"dump/{EXAMPLE}/1", f"dump/{EXAMPLE}/2"]
    assert "msg 5856" in git(demo_root, "tag", "-n1", f"dump/{EXAMPLE}/1")
    assert "msg 6026" in git(demo_root, "tag", "-n1", f"dump/{EXAMPLE}/2")


def test_render_now_and_at_the_first_dump(demo_root: Path) -> None:
    runner = CliRunner()
    now = runner.invoke(main, ["--help"])
    assert now.exit_code == 0
    now = runner.invoke(main, ["render", "--store", str(demo_root)])
    assert now.exit_code == 0, now.output
    assert now.output == render_markdown(load_example())
    first = runner.invoke(main, ["render", "--store", str(demo_root), "--at", f"dump/{EXAMPLE}/1"])
    assert first.exit_code == 0, first.output
    assert "bf16-kv-cache" not in first.output and "--kv-cache-dtype bf16" not in first.output
    assert "## Goal" in first.output and "msg 5852" in first.output
    second = runner.invoke(main, ["render", "--store", str(demo_root), "--at", f"dump/{EXAMPLE}/2"])
    assert second.output == now.output


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
