"""Edges a new user met: a line break in a title, an empty value for a mapping's key, a session
whose own file is broken."""

from __future__ import annotations

import yaml
from helpers import Cli, snapshot

from statedump.core.store.store import Store


def test_a_line_break_in_a_title_becomes_a_space(store: Store) -> None:
    cli = Cli(store.root)
    r = cli("add", "task", "--title", "first line\nsecond line")
    assert r.exit_code == 0, r.output
    assert store.get("s1", "first-line-second-line").title == "first line second line"
    assert len([line for line in cli("list").stdout.splitlines() if "first line" in line]) == 1


def test_an_empty_value_for_a_mapping_key_removes_the_key(store: Store) -> None:
    cli = Cli(store.root)
    assert cli("add", "benchmark", "--title", "b", "--field", "environment.tp=8", "--field", "environment.pp=2").exit_code == 0
    assert cli("edit", "b", "--field", "environment.tp=").exit_code == 0
    data = yaml.safe_load((store.root / "sessions/s1/benchmark/b.yaml").read_text())
    assert data["environment"] == {"pp": "2"}


def test_a_session_with_a_broken_file_takes_no_record(store: Store) -> None:
    (store.root / "sessions/s1/session.yaml").write_text("oops: x\n")
    before = snapshot(store.root)
    r = Cli(store.root)("add", "task", "--title", "z")
    assert r.exit_code == 2 and "sessions/s1/session.yaml" in r.stderr and len(r.stderr.splitlines()) == 1
    assert snapshot(store.root) == before
