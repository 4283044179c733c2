"""History: naming past states, the log of a record or a session, record-level diffs, dumps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import Cli, git, golden, snapshot

from statedump.core.errors import StatedumpError
from statedump.core.store.store import Store
from statedump.models import Discovery, Session, Task
from statedump.models.state import SessionState
from statedump.services.history import diff_states, record_log, resolve_ref, session_log, state_at

SID = "qwen35-397b-a17b-nvfp4"


# -- naming states ---------------------------------------------------------------------


def test_resolve_ref_takes_dump_tags_their_shorthand_commits_and_dates(demo_root: Path) -> None:
    store = Store(demo_root)
    tag = git(demo_root, "rev-parse", f"dump/{SID}/1^{{commit}}").strip()
    assert resolve_ref(store, f"dump/{SID}/1") == tag
    assert resolve_ref(store, "dump/1") == tag
    assert resolve_ref(store, "1", SID) == tag
    head = git(demo_root, "rev-parse", "HEAD").strip()
    assert resolve_ref(store, "HEAD") == head
    assert resolve_ref(store, "2026-03-14") == head
    assert resolve_ref(store, head[:10]) == head
    with pytest.raises(StatedumpError, match="no dump 9"):
        resolve_ref(store, "dump/9")
    with pytest.raises(StatedumpError, match="no commit named '9'"):
        resolve_ref(store, "9")
    with pytest.raises(StatedumpError, match="no commit on or before"):
        resolve_ref(store, "2020-01-01")
    assert state_at(store, SID, "1").get("bf16-kv-cache") is None
    assert state_at(store, SID, "2").get("bf16-kv-cache") is not None


# -- logs --------------------------------------------------------------------------------


def test_record_log_follows_a_record_across_kind_folders(store: Store) -> None:
    store.add("s1", Discovery(id="nextn", title="NEXTN gives no gain", source="msg 6005"))
    store.add("s1", Discovery(id="other", title="Unrelated"))
    store.put("s1", Task(id="nextn", title="Re-test NEXTN on real prompts"), source="msg 6026")
    store.put("s1", Task(id="nextn", title="Re-test NEXTN on real prompts", status="done"), action="status done")
    entries = record_log(store, "s1", "nextn")
    assert [(e.action, e.record, e.source) for e in entries] == [
        ("status done", "task/nextn", None),
        ("edit", "task/nextn", "msg 6026"),
        ("add", "discovery/nextn", "msg 6005"),
    ]
    assert entries[0].date >= entries[-1].date and len(entries[0].sha) == 40
    assert record_log(store, "s1", "never-there") == []
    assert [e.record for e in session_log(store, "s1", limit=2)] == ["task/nextn", "task/nextn"]
    assert session_log(store, "s1")[-1].action == "new"


def test_log_of_a_record_and_of_the_session(demo_root: Path) -> None:
    cli = Cli(demo_root)
    r = cli("log", "bf16-kv-cache")
    assert r.exit_code == 0, r.output
    golden("log-bf16-kv-cache.txt", r.output, mask_shas=True)
    assert "decision: add bf16-kv-cache" in r.output and "[msg 6008–6024]" in r.output
    r = cli("log", "--limit", "4")
    golden("log-session.txt", r.output, mask_shas=True)
    assert r.output.count("\n") == 4 and r.output.startswith("2026-03-14 17:57")
    data = json.loads(cli("log", "fp8-kv-cache-unscaled", "--json").output)
    # Found after msg 6007, resolved by the BF16 fix: the edit carries the source of the change.
    assert [(d["action"], d["record"], d["source"]) for d in data] == [
        ("edit", "discovery/fp8-kv-cache-unscaled", "msg 6024"),
        ("add", "discovery/fp8-kv-cache-unscaled", "msg 6008–6024"),
    ]


def test_log_of_an_unknown_record_is_one_line(demo_root: Path) -> None:
    r = Cli(demo_root)("log", "no-such-record")
    assert r.exit_code == 2 and r.output.count("\n") == 1
    assert "no record 'no-such-record'" in r.output


def test_log_hand_made_commits_without_trailers(store: Store) -> None:
    store.add("s1", Discovery(id="d1", title="First"))
    path = store.root / "sessions/s1/discovery/d1.yaml"
    path.write_text(path.read_text().replace("title: First", "title: Edited by hand"))
    git(store.root, "-c", "user.name=Hand", "-c", "user.email=hand@example.org", "commit", "-qam", "fix a typo")
    entries = record_log(store, "s1", "d1")
    assert (entries[0].subject, entries[0].action, entries[0].record) == ("fix a typo", None, "discovery/d1")


# -- diffs -------------------------------------------------------------------------------


def test_diff_states_record_by_record_and_field_by_field() -> None:
    meta = Session(id="s1", title="t")
    old = SessionState(
        meta,
        [
            Discovery(id="kv", title="FP8 KV unscaled", status="confirmed", tags=["kv"]),
            Task(id="gone", title="Old task"),
            Task(id="same", title="Same"),
        ],
    )
    new = SessionState(
        meta,
        [
            Discovery(id="kv", title="FP8 KV unscaled", status="resolved", tags=["kv", "fp8"], body="Fixed."),
            Task(id="same", title="Same"),
            Task(id="added", title="New task"),
        ],
    )
    diffs = diff_states(old, new)
    assert [(d.kind, d.id, d.change) for d in diffs] == [
        ("discovery", "kv", "changed"),
        ("task", "added", "added"),
        ("task", "gone", "removed"),
    ]
    assert [(f.field, f.old, f.new) for f in diffs[0].fields] == [
        ("status", "confirmed", "resolved"),
        ("tags", ["kv"], ["kv", "fp8"]),
        ("body", None, "Fixed."),
    ]
    assert diff_states(new, new) == []


def test_diff_between_the_two_dump_tags(demo_root: Path) -> None:
    cli = Cli(demo_root)
    r = cli("diff", f"dump/{SID}/1", f"dump/{SID}/2")
    assert r.exit_code == 0, r.output
    golden("diff-dumps.txt", r.output, mask_shas=True)
    assert "+ decision bf16-kv-cache: Force a BF16 KV cache" in r.output
    assert "+ instruction msg-6007-accuracy-question" in r.output
    data = json.loads(cli("diff", "1", "2", "--json").output)
    added = {(c["kind"], c["id"]) for c in data["changes"] if c["change"] == "added"}
    changed = {(c["kind"], c["id"]) for c in data["changes"] if c["change"] == "changed"}
    assert ("decision", "bf16-kv-cache") in added and ("command", "launch-server") in changed
    assert data["from"]["ref"] == "1" and len(data["to"]["commit"]) == 40
    assert "no differences" in cli("diff", "2").output


def test_diff_shows_changed_fields_old_to_new(demo_copy: Path) -> None:
    cli = Cli(demo_copy)
    assert cli("status", "fp8-kv-cache-unscaled", "confirmed").exit_code == 0
    text = json.loads(cli("show", "launch-server", "--json").output)["text"]
    (demo_copy / f"sessions/{SID}/command/launch-server.yaml").write_text(
        (demo_copy / f"sessions/{SID}/command/launch-server.yaml").read_text().replace("--kv-cache-dtype bf16", "--kv-cache-dtype fp8_e4m3")
    )
    assert "fp8_e4m3" not in text
    r = cli("diff", "dump/2")
    golden("diff-edits.txt", r.output, mask_shas=True)
    assert "    status: resolved -> confirmed" in r.output
    assert "      - --kv-cache-dtype bf16" in r.output and "      + --kv-cache-dtype fp8_e4m3" in r.output
    assert r.output.rstrip().endswith("0 added, 0 removed, 2 changed")
    data = json.loads(cli("diff", "2", "HEAD", "--json").output)
    assert data["changes"] == [
        {
            "id": "fp8-kv-cache-unscaled",
            "kind": "discovery",
            "change": "changed",
            "title": "SGLang enabled the checkpoint's FP8 KV cache with no scaling factors (scale 1.0)",
            "fields": [{"field": "status", "old": "resolved", "new": "confirmed"}],
        }
    ]


# -- dumps -------------------------------------------------------------------------------


def test_dumps_are_listed_with_dates_and_messages(demo_root: Path) -> None:
    r = Cli(demo_root)("dumps")
    golden("log-dumps.txt", r.output, mask_shas=True)
    assert r.output.startswith(f"dump/{SID}/1  2026-03-14 11:20  ")
    data = json.loads(Cli(demo_root)("dumps", "--json").output)
    assert [d["number"] for d in data] == [1, 2] and data[1]["message"].startswith("State dump (msg 6026)")


def test_dump_refuses_uncommitted_changes_then_tags_head(demo_copy: Path, tmp_path: Path) -> None:
    cli = Cli(demo_copy)
    target = demo_copy / f"sessions/{SID}/task/monitor-service.yaml"
    target.write_text(target.read_text() + "tags: [edited]\n")
    before = snapshot(demo_copy), git(demo_copy, "tag")
    r = cli("dump", "-m", "after the fix")
    assert r.exit_code == 2 and r.output.count("\n") == 1
    assert "uncommitted changes to sessions/qwen35-397b-a17b-nvfp4/task/monitor-service.yaml" in r.output
    assert (snapshot(demo_copy), git(demo_copy, "tag")) == before
    git(demo_copy, "checkout", "--", str(target))
    assert cli("status", "monitor-service", "todo").exit_code == 0  # a change worth a new dump
    out = tmp_path / "state.md"
    r = cli("dump", "-m", "after the   fix", "--out", str(out))
    assert r.exit_code == 0, r.output
    assert r.output.startswith(f"dump/{SID}/3 -> ") and ": after the fix\n" in r.output
    head = git(demo_copy, "rev-parse", "HEAD").strip()
    assert git(demo_copy, "rev-parse", f"dump/{SID}/3^{{commit}}").strip() == head
    assert (
        git(demo_copy, "for-each-ref", "--format=%(creatordate:iso-strict)", f"refs/tags/dump/{SID}/3").strip()
        == "2026-03-15T12:00:00+00:00"
    )
    assert cli("render", "--at", f"dump/{SID}/3").output == out.read_text(encoding="utf-8")
    listed = json.loads(cli("dumps", "--json").output)
    assert listed[-1]["message"] == "after the fix" and listed[-1]["date"] == "2026-03-15T12:00:00Z"
    assert cli("dump", "-m", "  ").exit_code == 2


@pytest.mark.parametrize(("args", "needle"), [(["diff", "nowhere"], "no commit named 'nowhere'"), (["diff", "1", "dump/5"], "no dump 5")])
def test_diff_bad_revisions_are_one_line(demo_root: Path, args: list[str], needle: str) -> None:
    r = Cli(demo_root)(*args)
    assert r.exit_code == 2 and r.output.count("\n") == 1 and needle in r.output


def test_a_second_dump_of_an_unchanged_session_is_refused(cli: Cli) -> None:
    cli("add", "goal", "--id", "g", "--title", "t")
    assert cli("dump", "-m", "first").exit_code == 0
    r = cli("dump", "-m", "again")
    assert r.exit_code == 2 and "nothing changed since dump/s1/1" in r.output
    assert git(cli.root, "tag").split() == ["dump/s1/1"]
