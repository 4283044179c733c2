"""Transcript import: Claude Code, Codex and opencode. The person's messages become
instructions with their uuid and time; summaries and empty-turn state dumps become records
and dump tags."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from helpers import FIXTURES, Cli, git

from statedump.core.store.store import Store
from statedump.services.ingest import read_plan
from statedump.services.refs import list_dumps


def _instructions(plan) -> list[tuple[str, str | None]]:  # type: ignore[no-untyped-def]
    return [(r.quote, r.source) for r in plan.records if r.kind == "instruction" and r.source and " " not in r.source]


def test_claude_code_records_kind_by_kind() -> None:
    plan = read_plan("claude-code", FIXTURES / "claude_code.jsonl")
    assert plan.skipped == []
    assert plan.session == {
        "title": "Deploy Qwen3.5 NVFP4 on SM120",
        "id": "claude-5e0c2a7b",
        "cwd": "/home/ann/src/sglang-deploy",
        "branch": "main",
        "started": datetime(2026, 3, 14, 10, 0, 0, 100000, tzinfo=UTC),
        "agent": "Claude Code 2.0.61 (claude-sonnet-4-5-20250929)",
    }
    typed = [r for r in plan.records if r.kind == "instruction" and r.source and r.source.startswith("a1c3e5f7")]
    # Tool results, meta caveats, slash commands, the sidechain and the empty turn are not instructions.
    assert [(r.quote, r.source, r.at) for r in typed] == [  # type: ignore[attr-defined]
        (
            "Deploy nvidia/Qwen3.5-397B-A17B-NVFP4 with SGLang on the 8 GPUs. Always keep accuracy first.",
            "a1c3e5f7-0000-4000-8000-000000000001",
            datetime(2026, 3, 14, 10, 0, 0, 100000, tzinfo=UTC),
        ),
        # The rule laid down in that request binds the rest of the session (issue 14).
        ("Always keep accuracy first.", "a1c3e5f7-0000-4000-8000-000000000001", datetime(2026, 3, 14, 10, 0, 0, 100000, tzinfo=UTC)),
        (
            "https://gist.github.com/catid/87cca824963f17fe7479a0ed26221397 - sm120 instructions",
            "a1c3e5f7-0000-4000-8000-000000000006",
            datetime(2026, 3, 14, 10, 2, tzinfo=UTC),
        ),
        ("try up to 1024", "a1c3e5f7-0000-4000-8000-000000000012", datetime(2026, 3, 14, 15, 0, tzinfo=UTC)),
        (
            "Are we doing anything that could be reducing model accuracy?",
            "a1c3e5f7-0000-4000-8000-000000000015",
            datetime(2026, 3, 14, 16, 5, tzinfo=UTC),
        ),
    ]
    assert [(c.source, c.message) for c in plan.checkpoints] == [
        ("claude-code a1c3e5f7-0000-4000-8000-000000000010", "state dump after an empty user message"),
        ("claude-code a1c3e5f7-0000-4000-8000-000000000014", "compaction summary"),
    ]
    from_dump = [r for r in plan.records if r.source == "claude-code a1c3e5f7-0000-4000-8000-000000000010"]
    assert sorted(r.kind for r in from_dump) == ["discovery", "goal", "instruction", "task", "task"]
    from_summary = {r.kind for r in plan.records if r.source == "claude-code a1c3e5f7-0000-4000-8000-000000000014"}
    assert from_summary == {"goal", "discovery", "file", "task"}
    # The summary's "All user messages" repeat what the transcript holds: each message once.
    quotes = [r.quote for r in plan.records if r.kind == "instruction"]  # type: ignore[attr-defined]
    assert quotes.count("try up to 1024") == 1 and quotes.count("Are we doing anything that could be reducing model accuracy?") == 1
    # The checkpoint's own state still has the summary's quote (the message came later).
    snapshot_quotes = [r.quote for r in plan.checkpoints[1].records if r.kind == "instruction"]  # type: ignore[attr-defined]
    assert "Are we doing anything that could be reducing model accuracy?" in snapshot_quotes


def test_claude_code_import_tags_each_checkpoint_with_its_own_state(cli: Cli, store: Store) -> None:
    before = git(store.root, "rev-parse", "HEAD").strip()
    r = cli("import", "claude-code", str(FIXTURES / "claude_code.jsonl"), "-s", "s1")
    assert r.exit_code == 0, r.output
    head = git(store.root, "rev-parse", "HEAD").strip()
    assert git(store.root, "rev-list", "--count", f"{before}..HEAD").strip() == "1"  # one commit on the branch
    dumps = list_dumps(store, "s1")
    assert [d.name for d in dumps] == ["dump/s1/1", "dump/s1/2"]
    assert dumps[0].message.startswith("State dump (claude-code a1c3e5f7-0000-4000-8000-000000000010)")
    # Each tag holds the session as the dump described it; the branch is not moved by them.
    first, second = (store.load("s1", d.name) for d in dumps)
    quotes = {r.quote for r in first.records if r.kind == "instruction"}  # type: ignore[attr-defined]
    assert "Keep accuracy first." in quotes and "try up to 1024" not in quotes
    assert not [r for r in first.records if r.kind == "file"]
    assert "try up to 1024" in {r.quote for r in second.records if r.kind == "instruction"}  # type: ignore[attr-defined]
    assert [c.source for c in first.session.checkpoints] == ["claude-code a1c3e5f7-0000-4000-8000-000000000010"]
    assert git(store.root, "rev-parse", f"{dumps[1].name}^{{commit}}~1").strip() == dumps[0].sha
    assert git(store.root, "rev-parse", f"{dumps[0].name}^{{commit}}~1").strip() == before
    assert "Statedump-Action: checkpoint" in git(store.root, "log", "-1", "--format=%B", dumps[0].sha)
    final = store.load("s1")
    # After the last checkpoint only the final message came.
    assert [r.source for r in final.records if r.id not in {x.id for x in second.records}] == ["a1c3e5f7-0000-4000-8000-000000000015"]
    assert [c.source for c in final.session.checkpoints] == [
        "claude-code a1c3e5f7-0000-4000-8000-000000000010",
        "claude-code a1c3e5f7-0000-4000-8000-000000000014",
    ]
    assert final.session.cwd == "/home/ann/src/sglang-deploy" and final.session.branch == "main"
    assert git(store.root, "status", "--porcelain") == ""
    # Again: nothing new, no new tags.
    r = cli("import", "claude-code", str(FIXTURES / "claude_code.jsonl"), "-s", "s1")
    assert "0 added, 0 changed" in r.stdout
    assert len(list_dumps(store, "s1")) == 2
    assert git(store.root, "rev-parse", "HEAD").strip() == head


def test_codex_wrapped_rollout() -> None:
    plan = read_plan("codex", FIXTURES / "codex_rollout.jsonl")
    assert plan.session["agent"] == "Codex CLI 0.56.0 (codex_cli_rs) with gpt-5-codex"
    assert plan.session["repo"] == "git@github.com:ann/sglang-deploy.git" and plan.session["branch"] == "deploy-sm120"
    typed = [(r.quote, r.source) for r in plan.records if r.kind == "instruction" and (r.source or "").startswith("codex 2026")]  # type: ignore[attr-defined]
    # The environment context and the response_item copy of the message are not counted twice.
    assert typed == [
        ("Launch SGLang with TP 8 and check the output.", "codex 2026-03-14T10:00:01.000Z"),
        ("Never trade accuracy for throughput.", "codex 2026-03-14T12:01:00.000Z"),
    ]
    assert [c.message for c in plan.checkpoints] == ["state dump after an empty user message", "compaction summary"]
    kinds = sorted({r.kind for r in plan.records})
    # `file`: the session's working directory (the Codex/opencode capture issue).
    assert kinds == ["decision", "discovery", "file", "goal", "instruction", "reference", "task"]


def test_codex_bare_era() -> None:
    plan = read_plan("codex", FIXTURES / "codex_rollout_bare.jsonl")
    # The first request is also the session's goal (the Codex/opencode capture issue).
    assert [r.quote for r in plan.records if r.kind == "instruction"] == ["Benchmark the server at concurrency 64."]  # type: ignore[attr-defined]
    assert [(r.kind, r.title) for r in plan.records if r.kind == "goal"] == [("goal", "Benchmark the server at concurrency 64.")]
    assert plan.session["id"] == "codex-56789abc" and plan.session["branch"] == "main"


def test_opencode_export() -> None:
    plan = read_plan("opencode", FIXTURES / "opencode_export.json")
    assert plan.session["title"] == "SGLang on SM120"
    assert plan.session["agent"] == "opencode 1.2.4 (anthropic/claude-sonnet-4-5)"
    typed = [(r.quote, r.source) for r in plan.records if r.kind == "instruction" and (r.source or "").startswith("msg_")]  # type: ignore[attr-defined]
    # Synthetic parts and the compaction request are not the person's words.
    assert typed == [
        ("enough info, this is probably good enough to deploy", "msg_a1b2c3d4e001"),
        ("try up to 1024", "msg_a1b2c3d4e003"),
    ]
    assert [(c.source, c.message) for c in plan.checkpoints] == [
        ("opencode msg_a1b2c3d4e005", "state dump after an empty user message"),
        ("opencode msg_a1b2c3d4e007", "compaction summary"),
    ]
    statuses = sorted(t.status for t in plan.records if t.kind == "task")  # type: ignore[attr-defined]
    assert statuses == ["blocked", "done", "done", "done", "in-progress", "todo", "todo"]


def _opencode_db(path: Path) -> None:
    """An opencode.db with the tables opencode 1.2 creates (the columns the importer reads and a few more)."""
    export = json.loads((FIXTURES / "opencode_export.json").read_text())
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT);
        CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, workspace_id TEXT, parent_id TEXT, slug TEXT,
            directory TEXT, path TEXT, title TEXT, version TEXT, share_url TEXT, summary_additions INTEGER,
            summary_deletions INTEGER, summary_files INTEGER, summary_diffs TEXT, cost REAL, tokens_input INTEGER,
            tokens_output INTEGER, revert TEXT, permission TEXT, time_created INTEGER, time_updated INTEGER,
            time_compacting INTEGER, time_archived INTEGER);
        CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
        CREATE INDEX message_session ON message (session_id, time_created, id);
        CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
        CREATE TABLE todo (session_id TEXT, content TEXT, status TEXT, priority TEXT, position INTEGER);
        """
    )
    info = export["info"]
    db.execute(
        "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?)",
        (
            info["id"],
            info["projectID"],
            info["slug"],
            info["directory"],
            info["title"],
            info["version"],
            info["time"]["created"],
            info["time"]["updated"],
        ),
    )
    db.execute(
        "INSERT INTO session (id, project_id, parent_id, title, time_created, time_updated) VALUES ('ses_child', 'p', ?, 'subagent', 1, 99999999999999)",
        (info["id"],),
    )
    db.execute("INSERT INTO session (id, project_id, title, time_created, time_updated) VALUES ('ses_old', 'p', 'older', 1, 2)")
    for m in export["messages"]:
        mi = dict(m["info"])
        mid, sid = mi.pop("id"), mi.pop("sessionID")
        db.execute("INSERT INTO message VALUES (?,?,?,?,?)", (mid, sid, mi["time"]["created"], mi["time"]["created"], json.dumps(mi)))
        for p in m["parts"]:
            pd = {k: v for k, v in p.items() if k not in ("id", "sessionID", "messageID")}
            db.execute("INSERT INTO part VALUES (?,?,?,?,?,?)", (p["id"], mid, sid, 0, 0, json.dumps(pd)))
    db.commit()
    db.close()


def test_opencode_database_gives_the_same_records_as_the_export(tmp_path: Path) -> None:
    dbfile = tmp_path / "opencode.db"
    _opencode_db(dbfile)
    from_db = read_plan("opencode", dbfile)
    from_export = read_plan("opencode", FIXTURES / "opencode_export.json")
    assert [r.model_dump() for r in from_db.records] == [r.model_dump() for r in from_export.records]
    assert from_db.session == from_export.session
    assert from_db.notes == ["read session ses_5a1f0e2c3ffe7b1Qk9 (the most recently updated) of 2 in the database"]


def test_opencode_database_todo_table_is_the_plan_as_it_stands(tmp_path: Path) -> None:
    dbfile = tmp_path / "opencode.db"
    _opencode_db(dbfile)
    db = sqlite3.connect(dbfile)
    sid = json.loads((FIXTURES / "opencode_export.json").read_text())["info"]["id"]
    rows = [(sid, "Calibrate FP8 KV scales", "completed", "high", 0), (sid, "Write the runbook", "pending", "low", 1)]
    db.executemany("INSERT INTO todo VALUES (?,?,?,?,?)", [*rows, ("ses_old", "Not this session's", "pending", "low", 0)])
    db.commit()
    db.close()
    tasks = {r.title: (r.status, r.priority) for r in read_plan("opencode", dbfile).records if r.kind == "task"}  # type: ignore[attr-defined]
    assert tasks["Calibrate FP8 KV scales"] == ("done", 1) and tasks["Write the runbook"] == ("todo", 3)
    assert "Not this session's" not in tasks


def test_transcript_import_through_the_cli_creates_the_session(cli: Cli, store: Store) -> None:
    r = cli("import", "codex", str(FIXTURES / "codex_rollout.jsonl"), "--session-title", "Codex on SM120")
    assert r.exit_code == 0, r.output
    # The store already has a session, so the import goes there unless -s names another.
    assert "into s1" in r.stdout
    r = cli("import", "opencode", str(FIXTURES / "opencode_export.json"), "-s", "oc")
    assert r.exit_code == 0 and "(new session)" in r.stdout
    meta = store.load_session("oc")
    assert meta.title == "SGLang on SM120" and meta.agent == "opencode 1.2.4 (anthropic/claude-sonnet-4-5)"
    assert [d.name for d in list_dumps(store, "oc")] == ["dump/oc/1", "dump/oc/2"]
