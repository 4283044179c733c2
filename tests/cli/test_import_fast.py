"""The fast import path gives what the plain one gave: tool rounds passed over unparsed leave
the plan as a full parse makes it, the checkpoint commits and dump tags are the objects git's
own commands make, redaction's quick check never lets a secret through, and a failed bulk
write leaves the store as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers import CLAUDE_CODE_ENVELOPE, FIXTURES, ROOT, SECRETS, Cli, git, snapshot

from benchmarks import generate
from statedump.core import forking
from statedump.core.git.fastimport import clean_message
from statedump.core.redact import _PATTERNS, redact_text
from statedump.core.store.store import Store
from statedump.services.ingest import bulk, claude_code
from statedump.services.ingest.bulk import Content, commit_bulk
from statedump.services.ingest.plan import ImportPlan
from statedump.services.ingest.transcript import Transcript
from statedump.services.refs import list_dumps

ENV = CLAUDE_CODE_ENVELOPE
TOOL_RESULT = {"role": "user", "content": [{"tool_use_id": "toolu_1", "type": "tool_result", "content": "ok\nfine", "is_error": False}]}


def _line(n: int, kind: str, message: Any, **extra: Any) -> dict[str, Any]:
    return {
        **ENV,
        "type": kind,
        "message": message,
        "uuid": f"u-{n:04d}",
        "timestamp": f"2026-03-14T10:{n // 60:02d}:{n % 60:02d}Z",
        **extra,
    }


def _assistant(n: int, text: str) -> dict[str, Any]:
    return _line(n, "assistant", {"model": "claude-sonnet-4-5-20250929", "role": "assistant", "content": [{"type": "text", "text": text}]})


def _tricky(path: Path) -> Path:
    """Lines that look like tool rounds to a careless byte check, and some that are damaged."""
    typed = 'please grep the log for "type":"tool_result" and "type": "tool_result"'
    rows: list[str] = [
        json.dumps(_line(1, "user", {"role": "user", "content": "Start the server."})),
        json.dumps(_assistant(2, "Starting.")),
        # A long output first: the file's first 8 kB must not hold the NUL below.
        json.dumps(_line(3, "user", TOOL_RESULT, toolUseResult={"stdout": "ok\n" * 5000})),
        # Idle and every fact known from here on: these must still be read in full.
        json.dumps(_line(4, "user", {"role": "user", "content": typed})),
        json.dumps(_line(5, "user", {"role": "user", "content": [{"type": "text", "text": typed}]})),
        # A real tool_result object, but not in message.content: the typed text still counts.
        json.dumps(_line(6, "user", {"role": "user", "content": "check the nested result"}, extra={"type": "tool_result"})),
        # The line's type after its message (another writer's key order).
        json.dumps({"message": {"role": "user", "content": "type comes last here"}, **ENV, "uuid": "u-0007", "type": "user"}),
        # Spacing and key order of another JSON writer.
        json.dumps(_line(8, "user", TOOL_RESULT), indent=None, separators=(" , ", " : ")),
        # A compaction summary whose content is a tool result: an empty summary, nothing to add.
        json.dumps(_line(9, "user", TOOL_RESULT, isCompactSummary=True)),
        json.dumps(_line(10, "system", None, subtype="turn_duration", durationMs=5)),
        # Damaged tool rounds: a NUL inside, no closing brace, cut off at the end of the file.
        json.dumps(_line(11, "user", TOOL_RESULT))[:-1] + "\x00}",
        json.dumps(_line(12, "user", TOOL_RESULT))[:-2] + " ",
        # An empty turn: the next assistant text must be read, even between tool rounds.
        json.dumps(_line(13, "user", {"role": "user", "content": ""})),
        json.dumps(_line(14, "user", TOOL_RESULT)),
        json.dumps(
            _assistant(15, "## Goal\n\nServe the model.\n\n## Instructions\n\n- Keep accuracy first.\n\n## Discoveries\n\n- It works.")
        ),
        json.dumps(_line(16, "user", {"role": "user", "content": "thanks"})),
        json.dumps({"type": "custom-title", "customTitle": "A title found late"}),
        json.dumps(_line(17, "user", TOOL_RESULT))[:40],
    ]
    path.write_text("\n".join(rows))
    return path


def _same(a: ImportPlan, b: ImportPlan) -> None:
    assert a.records == b.records
    assert a.session == b.session
    assert a.checkpoints == b.checkpoints
    assert a.skipped == b.skipped
    assert (a.notes, a.guessed) == (b.notes, b.guessed)


@pytest.mark.parametrize("shape", ["fixture", "tricky", "session", "dense"])
def test_passing_over_tool_rounds_gives_the_plan_a_full_parse_gives(shape: str, tmp_path: Path) -> None:
    if shape == "fixture":
        path = FIXTURES / "claude_code.jsonl"
    elif shape == "tricky":
        path = _tricky(tmp_path / "tricky.jsonl")
    else:
        path = tmp_path / f"{shape}.jsonl"
        generate.transcript(path, 0.6, dense=shape == "dense")
    fast, full = claude_code.read(path), claude_code.read(path, parse_all=True)
    _same(fast, full)
    if shape == "tricky":
        quotes = [r.quote for r in fast.records if r.kind == "instruction"]  # type: ignore[attr-defined]
        assert any('"type":"tool_result"' in q for q in quotes)
        assert {"check the nested result", "type comes last here", "Keep accuracy first."} <= set(quotes)
        assert "thanks" not in quotes  # an acknowledgement is no instruction (issue 14)
        assert [s.line for s in fast.skipped] == [11, 12, 18]
        assert fast.session["title"] == "A title found late"
        assert len(fast.checkpoints) == 1


def test_tool_rounds_are_passed_over_once_the_facts_are_known(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    generate.transcript(path, 0.3)
    lines = path.read_bytes().splitlines(keepends=True)
    plan = claude_code.read(path)
    talk = Transcript(plan, "claude-code")
    plan.session["model_used"] = "claude-sonnet-4-5-20250929"  # the facts of the whole file are known
    over = claude_code._PassOver(plan, talk)
    over.version = "2.0.61"
    kinds = [json.loads(raw)["type"] for raw in lines]
    passed = [over(raw, 0, len(raw)) for raw in lines]
    results = [k == "user" and b'"tool_result"' in raw for k, raw in zip(kinds, lines, strict=True)]
    assert sum(results) > 10
    assert all(p for p, r in zip(passed, results, strict=True) if r)
    # An assistant line that says something and calls nothing may be the reply that closes the
    # turn (a report, issue 14): it is read; the others are passed over.
    replies = [k == "assistant" and b'"tool_use"' not in raw and b'"type": "text"' in raw for k, raw in zip(kinds, lines, strict=True)]
    assert all(p for p, k, r in zip(passed, kinds, replies, strict=True) if k in ("assistant", "system") and not r)
    assert not any(p for p, r in zip(passed, replies, strict=True) if r)
    typed = [p for p, k, r in zip(passed, kinds, results, strict=True) if k == "user" and not r]
    assert typed and not any(typed)
    # Before the facts are known nothing is passed over.
    fresh = claude_code._PassOver(ImportPlan("claude-code", path), talk)
    assert not any(fresh(raw, 0, len(raw)) for raw in lines[:10] if json.loads(raw)["type"] != "file-history-snapshot")


def test_markdown_parser_is_loaded_only_for_a_dump(tmp_path: Path) -> None:
    plain = tmp_path / "plain.jsonl"
    plain.write_text("\n".join(json.dumps(_line(n, "user", {"role": "user", "content": f"step {n}"})) for n in range(1, 5)) + "\n")
    code = (
        "import sys\nfrom pathlib import Path\nfrom statedump.services.ingest import read_plan\n"
        "plan = read_plan('claude-code', Path(sys.argv[1]))\n"
        "print(len(plan.records), 'markdown_it' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(plain)], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["4", "False"]
    dumped = subprocess.run([sys.executable, "-c", code, str(FIXTURES / "claude_code.jsonl")], capture_output=True, text=True, check=True)
    assert dumped.stdout.split()[1] == "True"


def _tag_bytes(root: Path, name: str) -> list[str]:
    return [row for row in git(root, "cat-file", "tag", name).splitlines() if not row.startswith("tag ")]


def test_checkpoint_commits_and_tags_are_what_git_itself_makes(cli: Cli, store: Store) -> None:
    before = git(store.root, "rev-parse", "HEAD").strip()
    r = cli("import", "claude-code", str(FIXTURES / "claude_code.jsonl"), "-s", "s1")
    assert r.exit_code == 0, r.output
    dumps = list_dumps(store, "s1")
    assert len(dumps) == 2
    parent = before
    for dump in dumps:
        sha = git(store.root, "rev-parse", f"{dump.name}^{{commit}}").strip()
        tree = git(store.root, "rev-parse", f"{sha}^{{tree}}").strip()
        body = git(store.root, "cat-file", "commit", sha)
        date = body.split("\ncommitter ", 1)[1].split("\n", 1)[0].rsplit(" ", 2)[1]
        message = body.split("\n\n", 1)[1]
        env = {**os.environ, **store.git.identity_env(), "GIT_AUTHOR_DATE": f"{date} +0000", "GIT_COMMITTER_DATE": f"{date} +0000"}
        again = subprocess.run(
            ["git", "commit-tree", tree, "-p", parent, "-F", "-"], cwd=store.root, env=env, input=message, capture_output=True, text=True
        )
        assert again.stdout.strip() == sha, again.stderr
        # The tree: what was there before, and the session's files as of this dump.
        changed = git(store.root, "diff-tree", "-r", "--name-status", before, sha).splitlines()
        assert changed and all(row.startswith("A\tsessions/s1/") or row == "M\tsessions/s1/session.yaml" for row in changed)
        # The tag: byte for byte what `git tag -a` writes for the same message and time.
        subject = git(store.root, "for-each-ref", "--format=%(contents)", f"refs/tags/{dump.name}")
        tagged = git(store.root, "for-each-ref", "--format=%(creatordate:raw)", f"refs/tags/{dump.name}").strip()
        env = {**os.environ, **store.git.identity_env(), "GIT_COMMITTER_DATE": tagged}
        subprocess.run(["git", "tag", "-a", "ref-" + dump.name, "-m", subject.strip(), sha], cwd=store.root, env=env, check=True)
        assert _tag_bytes(store.root, dump.name) == _tag_bytes(store.root, "ref-" + dump.name)
        parent = sha
    assert "refs/statedump" not in git(store.root, "for-each-ref")


@pytest.mark.parametrize(
    "message",
    ["State dump (x): y", "  spaced   \n\n\n\nbody  \n\n", "# a comment line\nkept\n#another", "\n\nlead\n\ttab\t\n"],
)
def test_tag_messages_are_cleaned_as_git_tag_cleans_them(message: str, store: Store) -> None:
    head = git(store.root, "rev-parse", "HEAD").strip()
    env = {**os.environ, **store.git.identity_env()}
    subprocess.run(["git", "tag", "-a", "t1", "-m", message, head], cwd=store.root, env=env, check=True)
    stored = git(store.root, "cat-file", "tag", "t1").split("\n\n", 1)[1]
    assert clean_message(message) == stored


def test_only_four_letters_outside_ascii_match_ascii_ones_case_blind() -> None:
    import re

    from statedump.core.redact import _FOLD

    every = "".join(chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c <= 0xDFFF)
    found = {m.group(0) for a in 'abcdefghijklmnopqrstuvwxyz0123456789_-:="./' for m in re.finditer("(?i)" + re.escape(a), every)}
    assert {chr(c) for c in _FOLD} == found


def _full_redaction(text: str) -> str:
    for pattern, repl in _PATTERNS:
        text = pattern.sub(repl, text)
    return text


def test_quick_check_never_skips_a_secret() -> None:
    texts = []
    for _, text, secret in SECRETS:
        line = text.format(s=secret)
        texts += [line, line.upper(), line.lower(), line.swapcase(), f"prefix {line} suffix"]
    # Letters outside ASCII that the case-blind patterns take for ASCII ones.
    texts += ["PAſSWORD=hunter2hunter2", "--İtoken abcdefgh12345678", "ToKEN: abcdefgh12345678", "seCRet=abcdefgh12345678"]
    texts += ["db_pasſwd = abcdefgh12345678", "export API_KEY=abcdefgh12345678", "plain words, nothing secret", "naïve café…"]
    # Prose about tokens and secrets, and the key and flag forms that make them secrets.
    texts += [
        "decode 4096 tokens at 80 tokens/s; the secret is batching",
        'token: abcdefgh12345678 and "my_token" : "abcdefgh12345678"',
        "MY_SECRET =  abcdefgh12345678, db_passwd=abcdefgh12345678, x-api-key: abcdefgh12345678",
        "run --hf-token abcdefgh12345678 --admin-password=abcdefgh12345678 --token\tabcdefgh12345678",
        "set X_AUTH_TOKEN= 'abcdefgh12345678' then ACCESS_KEY:abcdefgh12345678",
    ]
    for text in texts:
        assert redact_text(text) == _full_redaction(text), text


class _Objects:
    """Objects that count the blobs they are given and fail on `close` when told to."""

    def __init__(self, fail: bool) -> None:
        self.blobs: list[bytes] = []
        self.fail = fail
        self.aborted = False

    def blob(self, data: bytes) -> None:
        self.blobs.append(data)

    def close(self) -> None:
        if self.fail:
            assert len(self.blobs) == 22
            raise RuntimeError("boom on close")

    def wait(self) -> None:
        return None

    def abort(self) -> None:
        self.aborted = True


@pytest.mark.parametrize("offload", [10_000, 1], ids=["written here", "written by the child"])
def test_a_failed_bulk_write_leaves_the_store_as_it_was(store: Store, monkeypatch: pytest.MonkeyPatch, offload: int) -> None:
    monkeypatch.setattr(bulk, "OFFLOAD", offload)
    before = snapshot(store.root)
    folder = store.session_dir("s1") / "task"
    folder.mkdir()
    session_file = store.session_dir("s1") / "session.yaml"

    def boom() -> bytes:
        raise RuntimeError("boom while making a file")

    files: dict[Path, Content] = {folder / f"t{n}.yaml": b"x: 1\n" for n in range(20)}
    files[session_file] = b"changed: yes\n"
    # A folder where a file should be: the write itself fails (the child's error is the same OSError).
    blocked: dict[Path, Content] = {**files, folder / "t3.yaml" / "under.yaml": b"y: 2\n"}
    for given, fail, message in (
        ({**files, folder / "last.yaml": b"y: 2\n"}, True, "boom on close"),
        ({**files, folder / "last.yaml": boom}, False, "boom while making"),
        (blocked, False, "Not a directory|File exists"),
    ):
        objects = _Objects(fail)
        with store.lock(), pytest.raises((RuntimeError, OSError), match=message):
            commit_bulk(store, given, "import: test\n", None, objects)
        assert objects.aborted
        assert snapshot(store.root)[2] == {**before[2]}
        assert not store.journal_path.exists()
    folder.rmdir()
    assert snapshot(store.root) == before


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_child_writes_the_files_as_this_process_does(store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from statedump.core.filewriter import FileWriter, write_files

    files = [(tmp_path / "here" / "kind" / f"r{n}.yaml", f"n: {n}\n".encode() * n) for n in range(50)]
    files += [(tmp_path / "here" / "kind" / "r3.yaml", None), (tmp_path / "here" / "other" / "é ünïcode.yaml", b"\x00binary\xff")]
    write_files(files)
    writer = FileWriter()
    for path, data in files:
        writer.write(tmp_path / "there" / path.relative_to(tmp_path / "here"), data)
    writer.finish()
    here, there = _tree(tmp_path / "here"), _tree(tmp_path / "there")
    assert here == there and len(here) == 50
    # The same import into twin stores, one written here and one by the child, gives the same commit.
    transcript = tmp_path / "t.jsonl"
    generate.transcript(transcript, 0.3)
    made = {}
    from statedump.core.store import parallel
    from statedump.services.ingest.incremental import import_incremental

    monkeypatch.setattr(forking, "_cores", lambda: 2)  # (a one-core machine forks too, here)
    # Written here; by the child; and by the child with the YAML made on two cores (a fork),
    # each file handed over as soon as it is made.
    for name, offload, fork_from in (("here", 10_000, 10**9), ("child", 1, 10**9), ("forked", 1, 1)):
        monkeypatch.setattr(bulk, "OFFLOAD", offload)
        monkeypatch.setattr(parallel, "MIN_DUMPS", fork_from)
        root = tmp_path / f"store-{name}"
        generate.build_store(root, 0)
        report = import_incremental(Store(root), transcript, full=True)
        tags = git(root, "for-each-ref", "--format=%(refname) %(*tree)", "refs/tags")
        made[name] = (git(root, "rev-parse", "HEAD^{tree}").strip(), _tree(root / "sessions"), git(root, "status", "--porcelain"), tags)
        assert report.checkpoints and report.tags
    assert made["here"] == made["child"] == made["forked"]
    assert made["child"][2] == ""


def test_redact_model_gives_back_what_the_full_walk_gives() -> None:
    from statedump.core import redact
    from statedump.models import Command, Instruction
    from statedump.services.demo import load_example

    def full(model: Any) -> Any:
        data = model.model_dump(mode="python", exclude_unset=False)
        cleaned = redact._walk(data)
        return model if cleaned == data else type(model).model_validate(cleaned)

    secret = SECRETS[0][2]
    models: list[Any] = list(load_example().records)
    models += [
        Command(id="launch", title="Launch", text=f"serve --api-key {secret}", env={"HF_TOKEN": "abc", "PORT": "1"}),
        Command(id="plain", title="Launch", text="serve", env={"MY_SECRET": "<redacted>", "HF_TOKEN": ""}),
        Instruction(id="say", title="Said", quote=f"use {secret} please"),
    ]
    for model in models:
        got, want = redact.redact_model(model), full(model)
        assert got == want, model.id
        if want is model:
            assert got is model


def test_strict_reads_every_line_so_a_damaged_tool_round_is_refused(cli: Cli, store: Store, tmp_path: Path) -> None:
    path = tmp_path / "damaged.jsonl"
    generate.transcript(path, 0.2)
    lines = path.read_bytes().splitlines(keepends=True)
    # Late in the file, a tool result damaged in its middle: braced, newline-terminated, not JSON.
    at = next(i for i in range(len(lines) - 1, 0, -1) if b'"tool_result"' in lines[i])
    lines[at] = lines[at].replace(b'"is_error"', b'"is_error" oops', 1)
    path.write_bytes(b"".join(lines))
    before = snapshot(store.root)
    refused = cli("import", "claude-code", str(path), "--strict")
    assert refused.exit_code == 2 and f"line {at + 1}" in refused.output, refused.output
    assert snapshot(store.root) == before
    # Without --strict the damaged round is passed over and the rest imported.
    assert cli("import", "claude-code", str(path)).exit_code == 0


def test_a_user_line_whose_type_comes_last_is_read(tmp_path: Path) -> None:
    # Only scalar members, `type` last (no message): its envelope (session id, folder, branch,
    # time, version) is the first the file gives, so it must be read.
    first = {k: v for k, v in _line(1, "user", None).items() if k not in ("type", "message")}
    first |= {"sessionId": "abcdef12-0000-4000-8000-000000000000", "cwd": "/first", "gitBranch": "b1", "version": "0.9"}
    first["type"] = "user"
    rows = [first, _assistant(2, "hi"), _line(3, "user", TOOL_RESULT), _line(4, "user", {"role": "user", "content": "next"})]
    path = tmp_path / "last.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    fast, full = claude_code.read(path), claude_code.read(path, parse_all=True)
    _same(fast, full)
    assert fast.session["cwd"] == "/first" and fast.session["branch"] == "b1"


def _resumed_read(path: Path) -> tuple[ImportPlan, Any]:
    from statedump.services.ingest import read_plan
    from statedump.services.ingest.jsonl import Resume, resuming

    resume = Resume(path.resolve())
    with resuming(resume):
        plan = read_plan("claude-code", path)
    return plan, (resume.kept, resume.end, resume.end_lines, resume.positions)


def _real_transcripts() -> list[Path]:
    return sorted((ROOT / "tests" / "corpus_real" / "transcripts" / "claude-code").rglob("*.jsonl"))


@pytest.mark.parametrize("shape", ["fixture", "tricky", "session", "real"])
def test_a_scan_by_a_child_process_gives_the_plan_a_scan_here_gives(shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from statedump.services.ingest import linescan

    if shape == "fixture":
        paths = [FIXTURES / "claude_code.jsonl"]
    elif shape == "tricky":
        paths = [_tricky(tmp_path / "tricky.jsonl")]
    elif shape == "session":
        paths = [tmp_path / "session.jsonl"]
        generate.transcript(paths[0], 0.6)
    else:
        paths = _real_transcripts()
        assert len(paths) >= 5
    monkeypatch.setattr(linescan, "_BATCH", 7)  # many batches, one cut inside a tool round
    monkeypatch.setattr(forking, "_cores", lambda: 2)  # (a one-core machine forks too, here)
    real_fork = os.fork
    forks: list[int] = []

    def fork() -> int:
        forks.append(1)
        return real_fork()

    for path in paths:
        monkeypatch.setattr(linescan, "FORK_BYTES", 1 << 60)
        here, here_resume = _resumed_read(path)
        monkeypatch.setattr(linescan, "FORK_BYTES", 0)
        for thread in threading.enumerate():  # the digest of a subagent's file, still hashing
            if thread is not threading.main_thread():
                thread.join(10)
        forks.clear()
        monkeypatch.setattr(os, "fork", fork)
        forked, forked_resume = _resumed_read(path)
        monkeypatch.setattr(os, "fork", real_fork)
        assert forks == [1], path  # one child, started before the reader's modules were imported
        _same(forked, here)
        assert forked_resume == here_resume, path


def test_a_child_that_stops_early_leaves_the_rest_to_be_scanned_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from statedump.services.ingest import linescan

    path = tmp_path / "session.jsonl"
    generate.transcript(path, 0.6)
    monkeypatch.setattr(linescan, "FORK_BYTES", 1 << 60)
    here, here_resume = _resumed_read(path)
    sent = []
    real_send = linescan._send

    def dies_after_three(fd: int, data: bytes | bytearray) -> None:
        # In the child (a fork shares this patch): three batches, then half of one, then it stops.
        sent.append(1)
        if len(sent) > 3:
            real_send(fd, bytes(data)[: len(data) // 2])
            os._exit(0)
        real_send(fd, data)

    monkeypatch.setattr(linescan, "_send", dies_after_three)
    monkeypatch.setattr(forking, "_cores", lambda: 2)
    monkeypatch.setattr(linescan, "_BATCH", 50)
    monkeypatch.setattr(linescan, "FORK_BYTES", 0)
    forked, forked_resume = _resumed_read(path)
    _same(forked, here)
    assert forked_resume == here_resume


def test_a_child_started_for_a_read_that_never_comes_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from statedump.services.ingest import claude_bytes, linescan

    path = tmp_path / "session.jsonl"
    generate.transcript(path, 0.3)
    monkeypatch.setattr(linescan, "FORK_BYTES", 0)
    monkeypatch.setattr(forking, "_cores", lambda: 2)
    key = linescan.start(path, 0, claude_bytes.features)
    assert key is not None
    pid = linescan._started[key].pid
    linescan.stop(key)
    assert key not in linescan._started
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no process left behind
    # And a file that is not there starts nothing (the reader says what is wrong).
    assert linescan.start(tmp_path / "missing.jsonl", 0, claude_bytes.features) is None
