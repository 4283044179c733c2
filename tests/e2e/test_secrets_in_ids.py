"""The secrets corpus where redaction used to miss it: in titles that ids (file names, commit
subjects, the reflog) are made from, in mapping keys (`env`, `environment`, `versions`), in the
first words of an imported message, in a summary's items, in MCP titles and in dump messages.
Afterwards a scan of the work tree (names and contents), `git log -p --all`, the reflog, the
tags, `.git/statedump/` and every command's output finds none of it, in any letter case, nor
as the slug an id would make of it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from helpers import SECRETS, Cli, git
from test_mcp import call

from statedump.core.store.store import Store


def _one_line_cases() -> list[tuple[str, str]]:
    return [(shape, text.format(s=secret)) for shape, text, secret in SECRETS if "\n" not in text]


def _forms(secret: str) -> list[str]:
    """The secret as it could survive: as written, lowercased, and as an id's slug of it."""
    slug = re.sub(r"[^a-z0-9]+", "-", secret.lower()).strip("-")
    return [secret.lower(), *([slug] if len(slug) >= 6 else [])]


def _leaks(text: str) -> list[str]:
    low = text.lower()
    return [secret for _, _, secret in SECRETS if any(form in low for form in _forms(secret))]


def test_no_secret_reaches_an_id_a_key_an_import_or_an_output(cli: Cli, store: Store, tmp_path: Path) -> None:
    outputs: list[str] = []
    cases = _one_line_cases()
    # Titles an id is made from (CLI, then MCP); the issue's own example first.
    titles = [f"rotated key {'AKIA' + 'QX3D7KJ2M5N8P4RT'} yesterday"] + [f"rotated {shape} {line} yesterday"[:290] for shape, line in cases]
    for n, title in enumerate(titles):
        got = cli("add", "discovery", "--title", title, "--source", title)
        assert got.exit_code == 0, (title, got.output)
        outputs.append(got.output)
        if n % 4 == 0:
            got = call(store, lambda c, t=title: c.call_tool("add_record", {"kind": "task", "title": "mcp " + t}))
            assert not got.is_error, title
    # Mapping keys and values: a command's env, a benchmark's environment, a compat's versions.
    keys = {line[:60]: "1" for _, line in cases}
    values = {"HF_TOKEN": SECRETS[4][2], "DB_PASS": "dbpass42", "MYSQL_PWD": "mysqlpwd42"}
    for n, (kind, field, extra) in enumerate(
        [
            ("command", "env", {"text": "python serve.py"}),
            ("benchmark", "environment", {}),
            ("compat", "versions", {"component": "c", "option": "o", "target": "t"}),
        ]
    ):
        source = tmp_path / f"r{n}.json"
        source.write_text(json.dumps({"title": f"keys of {kind}", field: {**keys, **values}, **extra}))
        got = cli("add", kind, "--from", str(source))
        assert got.exit_code == 0, got.output
    # Imports: a transcript whose prompts start with a secret (instruction ids are made from
    # a message's first words), and a summary whose items hold them.
    lines = []
    for n, (_, line) in enumerate(cases):
        lines.append(
            {
                "type": "user",
                "uuid": f"u{n}",
                "parentUuid": f"u{n - 1}" if n else None,
                "sessionId": "s-import",
                "cwd": "/srv",
                "timestamp": f"2026-03-14T10:{n:02d}:00Z",
                "message": {"role": "user", "content": f"{line} — always keep this in mind"},
            }
        )
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("".join(json.dumps(x) + "\n" for x in lines))
    got = cli("import", "claude-code", str(transcript), "-s", "imported")
    assert got.exit_code == 0, got.output
    outputs.append(got.output)
    summary = tmp_path / "summary.md"
    summary.write_text(
        "# Session summary\n\n## Key Findings\n\n" + "".join(f"- {line} breaks the cache\n" for _, line in cases) + "\n## Pending Tasks\n\n"
        + "".join(f"- Rotate {line}\n" for _, line in cases[:10])
    )  # fmt: skip
    got = cli("import", "markdown", str(summary), "-s", "summary")
    assert got.exit_code == 0, got.output
    outputs.append(got.output)
    assert cli("dump", "-m", "dump after " + cases[0][1]).exit_code == 0
    # Every output a reader sees.
    for args in (("list",), ("render",), ("list", "--json"), ("log",), ("handoff",), ("resume",), ("sessions",)):
        for session in ("s1", "imported", "summary"):
            got = cli(*args, "-s", session) if args != ("sessions",) else cli(*args)
            outputs.append(got.output)

    root = store.root
    names = "\n".join(str(p.relative_to(root)) for p in root.rglob("*") if ".git" not in p.relative_to(root).parts)
    history = git(root, "log", "-p", "--all", "--format=%H%n%B")
    reflog = git(root, "reflog", "--all", "--format=%gs %s")
    tags = git(root, "for-each-ref", "--format=%(refname) %(contents)", "refs/tags")
    files = {str(p): p.read_bytes().decode("utf-8", "replace") for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}
    # Everything statedump keeps there, the incremental import's state included (it names the
    # lines it replays by place and digest, not by their text).
    ours = {str(p): p.read_bytes().decode("utf-8", "replace") for p in (root / ".git" / "statedump").rglob("*") if p.is_file()}
    assert any(p.endswith(".state") for p in ours), "no incremental import state to scan"
    assert ours, "nothing of .git/statedump/ was scanned"
    scanned = [("file names", names), ("history", history), ("reflog", reflog), ("tags", tags), *files.items(), *ours.items()]
    scanned += [(f"output {i}", out) for i, out in enumerate(outputs)]
    for where, text in scanned:
        assert _leaks(text) == [], where
    assert "rotated-key-redacted-yesterday" in names
    assert history.count("<redacted>") > len(SECRETS)
