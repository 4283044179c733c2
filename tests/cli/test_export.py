"""`statedump export adr|madr`: golden files, adr-tools reading them, idempotent re-export."""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from helpers import Cli, git, golden, snapshot

from statedump.core.store.store import Store
from statedump.models import Alternative, Decision, Links, Tradeoff
from statedump.services.export.adr import SUPERSEDED_BY, SUPERSEDES

needs_adr = pytest.mark.skipif(shutil.which("adr") is None, reason="adr-tools is not installed (apt-get install adr-tools)")


def _bundle(folder: Path) -> str:
    return "".join(f"==> {p.name} <==\n{p.read_text(encoding='utf-8')}" for p in sorted(folder.iterdir()) if not p.name.startswith("."))


def _adr(cwd: Path, *args: str) -> str:
    return subprocess.run(["adr", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def _decision(n: int, **kw: object) -> Decision:
    base: dict[str, object] = {
        "id": f"d{n}",
        "title": f"Decision {n}",
        "status": "accepted",
        "choice": f"option {n}",
        "at": datetime(2026, 3, n, 9, tzinfo=UTC),
    }
    return Decision.model_validate({**base, **kw})


@pytest.fixture
def superseding(store: Store) -> Store:
    """d1 superseded by d3; d2 proposed; d4 rejected."""
    store.add("s1", _decision(1, status="superseded", title="Use FP8 KV cache"))
    store.add("s1", _decision(2, status="proposed", title="Calibrate KV scales"))
    d3 = _decision(
        3,
        title="Use BF16 KV cache",
        links=Links(supersedes=["d1"]),
        alternatives=[Alternative(option="FP8", why_not="unscaled")],
        tradeoffs=[Tradeoff(aspect="KV cache capacity", before="3.15M", after="1.57M", unit="tokens")],
        deciders=["Ann Lee", "agent"],
    )
    store.add("s1", d3)
    store.add("s1", _decision(4, status="rejected", title="Disable the KV cache"))
    return store


def test_adr_export_of_the_demo_matchesgolden(demo_root: Path, tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")  # a project: `.adr-dir` goes at its root
    r = Cli(demo_root)("export", "adr", "--dir", str(tmp_path / "doc" / "decisions"))
    assert r.exit_code == 0, r.output
    assert "5 written, 0 unchanged, 0 removed" in r.output
    assert (tmp_path / ".adr-dir").read_text() == "doc/decisions\n"
    assert not (tmp_path / "doc" / ".adr-dir").exists()
    golden("export-adr.md", _bundle(tmp_path / "doc" / "decisions"))


def test_madr_export_of_the_demo_matchesgolden(demo_root: Path, tmp_path: Path) -> None:
    r = Cli(demo_root)("export", "madr", "--dir", str(tmp_path / "madr"))
    assert r.exit_code == 0, r.output
    text = _bundle(tmp_path / "madr")
    # The commits of the demo store differ per build: name them by the record instead.
    path = "sessions/qwen35-397b-a17b-nvfp4/decision/bf16-kv-cache.yaml"
    sha = git(demo_root, "log", "--diff-filter=A", "--format=%H", "--", path).strip()
    assert f"Recorded in commit `{sha[:10]}`" in text
    for line in git(demo_root, "log", "--format=%H").split():
        text = text.replace(line[:10], "<commit>")
    golden("export-madr.md", text)
    front = yaml.safe_load(text.split("==> 0005-")[1].split("---\n")[1])
    assert front == {"status": "accepted", "date": datetime(2026, 3, 14).date(), "decision-makers": ["coding agent"]}
    for heading in (
        "## Context and Problem Statement",
        "## Considered Options",
        "## Decision Outcome",
        "### Consequences",
        "## More Information",
    ):
        assert heading in text
    assert "* Bad, because KV cache capacity: 3.15M → 1.57M tokens" in text


@needs_adr
def test_adr_tools_lists_every_decision_and_builds_the_toc(demo_root: Path, tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    Cli(demo_root)("export", "adr", "--dir", str(tmp_path / "doc" / "decisions"))
    (tmp_path / "src").mkdir()
    listed = _adr(tmp_path / "src", "list").split()  # anywhere in the project
    assert listed == [f"../doc/decisions/{p.name}" for p in sorted((tmp_path / "doc" / "decisions").glob("*.md"))]
    assert len(listed) == 5
    toc = _adr(tmp_path, "generate", "toc")
    assert toc.startswith("# Architecture Decision Records\n")
    assert (
        "* [5. Force a BF16 KV cache instead of the checkpoint's unscaled FP8](0005-force-a-bf16-kv-cache-instead-of-the-checkpoint-s-unscaled-fp8.md)"
        in toc
    )


@needs_adr
def test_outside_any_project_the_pointer_stays_inside_the_folder(demo_root: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    r = Cli(demo_root)("export", "adr", "--dir", str(home / "adr"))
    assert r.exit_code == 0, r.output
    assert not (home / ".adr-dir").exists()  # never above --dir: it would redirect every project below
    assert (home / "adr" / ".adr-dir").read_text() == ".\n"
    assert len(_adr(home / "adr", "list").split()) == 5
    # The neighbour's adr-tools is not redirected: it still looks for its own doc/adr.
    neighbour = subprocess.run(["adr", "list"], cwd=home / "project", capture_output=True, text=True)
    assert "doc/adr directory does not exist" in neighbour.stdout + neighbour.stderr


@needs_adr
def test_adr_tools_own_records_keep_their_files_and_numbers(demo_copy: Path, tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    env = {**os.environ, "ADR_DATE": "2026-03-01", "EDITOR": "true", "VISUAL": "true"}
    for args in (["init", "doc/adr"], ["new", "Use PostgreSQL"]):
        subprocess.run(["adr", *args], cwd=tmp_path, env=env, check=True, capture_output=True)
    theirs = {p.name: p.read_bytes() for p in (tmp_path / "doc" / "adr").iterdir()}
    cli = Cli(demo_copy)
    r = cli("export", "adr", "--dir", str(tmp_path / "doc" / "adr"))
    assert r.exit_code == 0, r.output
    assert (tmp_path / ".adr-dir").read_text() == "doc/adr\n"
    after = {p.name: p.read_bytes() for p in (tmp_path / "doc" / "adr").iterdir()}
    assert {k: after[k] for k in theirs} == theirs  # adr-tools' 0001 and 0002 untouched
    names = sorted(after)
    assert names[:2] == ["0001-record-architecture-decisions.md", "0002-use-postgresql.md"]
    assert [n[:4] for n in names[2:]] == ["0003", "0004", "0005", "0006", "0007"]
    # adr-tools goes on numbering after ours, and a re-export keeps every number.
    subprocess.run(["adr", "new", "Use Redis"], cwd=tmp_path, env=env, check=True, capture_output=True)
    assert (tmp_path / "doc" / "adr" / "0008-use-redis.md").is_file()
    r = cli("export", "adr", "--dir", str(tmp_path / "doc" / "adr"))
    assert "0 written, 5 unchanged, 0 removed" in r.output
    assert len(_adr(tmp_path, "list").split()) == 8


def test_two_sessions_export_side_by_side(demo_copy: Path, tmp_path: Path) -> None:
    cli = Cli(demo_copy)
    assert cli("session", "new", "second", "--title", "A second deployment").exit_code == 0
    assert cli("add", "decision", "-s", "second", "--title", "Serve with vLLM", "--field", "choice=vLLM").exit_code == 0
    out = tmp_path / "adr"
    first = "qwen35-397b-a17b-nvfp4"
    assert cli("export", "adr", "-s", first, "--dir", str(out)).exit_code == 0
    r = cli("export", "adr", "-s", "second", "--dir", str(out))
    assert r.exit_code == 0 and "1 written, 0 unchanged, 0 removed" in r.output
    names = sorted(p.name for p in out.glob("*.md"))
    assert len(names) == 6 and names[-1] == "0006-serve-with-vllm.md"
    # Each session's re-export leaves the other's files alone.
    assert "0 written, 5 unchanged, 0 removed" in cli("export", "adr", "-s", first, "--dir", str(out)).output
    assert "0 written, 1 unchanged, 0 removed" in cli("export", "adr", "-s", "second", "--dir", str(out)).output
    assert len(list(out.glob("*.md"))) == 6


@needs_adr
def test_supersede_links_both_ways_as_adr_tools_writes_them(superseding: Store, tmp_path: Path) -> None:
    out = tmp_path / "adr"
    assert Cli(superseding.root)("export", "adr", "--dir", str(out)).exit_code == 0
    old = (out / "0001-use-fp8-kv-cache.md").read_text()
    new = (out / "0003-use-bf16-kv-cache.md").read_text()
    assert f"## Status\n\n{SUPERSEDED_BY} [3. Use BF16 KV cache](0003-use-bf16-kv-cache.md)\n\n## Context" in old
    assert f"## Status\n\nAccepted\n\n{SUPERSEDES} [1. Use FP8 KV cache](0001-use-fp8-kv-cache.md)\n\n## Context" in new
    assert "## Status\n\nProposed\n" in (out / "0002-calibrate-kv-scales.md").read_text()
    assert "## Status\n\nRejected\n" in (out / "0004-disable-the-kv-cache.md").read_text()
    assert len(_adr(out, "list").split()) == 4
    graph = _adr(out, "generate", "graph")
    assert '_3 -> _1 [label="Supersedes"' in graph  # adr-tools parsed our Supersedes link
    # The words are the ones adr-tools itself writes for `adr new -s`.
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "ADR_DATE": "2026-03-15", "EDITOR": "true", "VISUAL": "true"}
    for args in (["init", "d"], ["new", "Old"], ["new", "-s", "2", "New"]):
        subprocess.run(["adr", *args], cwd=scratch, env=env, check=True, capture_output=True)
    theirs = (scratch / "d" / "0002-old.md").read_text() + (scratch / "d" / "0003-new.md").read_text()
    assert f"{SUPERSEDED_BY} [3. New](0003-new.md)" in theirs and f"{SUPERSEDES} [2. Old](0002-old.md)" in theirs


def test_madr_status_and_front_matter_for_each_lifecycle(superseding: Store, tmp_path: Path) -> None:
    out = tmp_path / "madr"
    assert Cli(superseding.root)("export", "madr", "--dir", str(out)).exit_code == 0
    old = (out / "0001-use-fp8-kv-cache.md").read_text()
    new = (out / "0003-use-bf16-kv-cache.md").read_text()
    assert old.startswith("---\nstatus: superseded by ADR-0003\ndate: 2026-03-01\n---\n\n# Use FP8 KV cache\n")
    assert new.startswith("---\nstatus: accepted\ndate: 2026-03-03\ndecision-makers:\n- Ann Lee\n- agent\n---\n")
    assert "* Supersedes [Use FP8 KV cache](0001-use-fp8-kv-cache.md)" in new
    assert "* Superseded by [Use BF16 KV cache](0003-use-bf16-kv-cache.md)" in old
    assert "### FP8\n\n* Bad, because unscaled" in new


def test_re_export_is_byte_identical_and_renumbering_removes_old_files(demo_copy: Path, tmp_path: Path) -> None:
    cli = Cli(demo_copy)
    out = tmp_path / "adr"
    cli("export", "adr", "--dir", str(out))
    first = _bundle(out)
    r = cli("export", "adr", "--dir", str(out))
    assert "0 written, 5 unchanged, 0 removed" in r.output
    assert _bundle(out) == first
    assert cli("edit", "disable-nextn", "--title", "Serve without MTP for now").exit_code == 0
    r = cli("export", "adr", "--dir", str(out))
    assert "1 written, 4 unchanged, 1 removed" in r.output
    names = sorted(p.name for p in out.glob("*.md"))
    assert "0004-serve-without-mtp-for-now.md" in names and len(names) == 5


def test_a_file_in_the_way_of_an_export_is_refused_and_nothing_written(demo_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "doc" / "adr"
    out.mkdir(parents=True)
    (out / "0001-keep.md").write_text("# 1. not ours\n")
    before = snapshot_dir(tmp_path)
    store_before = snapshot(demo_root)
    r = Cli(demo_root)("export", "madr", "--dir", str(out / "0001-keep.md"))
    assert r.exit_code == 2 and "expected a folder, found a file" in r.stderr
    assert snapshot_dir(tmp_path) == before and snapshot(demo_root) == store_before


def test_an_adr_dir_pointing_elsewhere_is_refused(demo_root: Path, tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / ".adr-dir").write_text("doc/architecture\n")
    r = Cli(demo_root)("export", "adr", "--dir", str(tmp_path / "decisions"))
    assert r.exit_code == 2 and "already points at 'doc/architecture'" in r.stderr
    assert not (tmp_path / "decisions").exists()


def snapshot_dir(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
