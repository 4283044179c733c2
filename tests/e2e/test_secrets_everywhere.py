"""The secrets corpus through every entry point at once — add (flags, --from, stdin), edit,
status, session new, import, and the MCP server — then a scan of every file, tag and the
whole git history finds none of them."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import SECRETS, Cli, corpus_text, find_secrets, git, secrets
from test_mcp import call

from statedump.core.store.store import Store


def test_no_secret_survives_any_entry_point(cli: Cli, store: Store, tmp_path: Path) -> None:
    corpus = corpus_text()
    one_line = " ".join(text.format(s=s) for _, text, s in SECRETS if "\n" not in text)
    # CLI: flags, a YAML file, stdin, edit, status source, a new session's fields.
    assert cli("add", "discovery", "--id", "d1", "--title", one_line[:290], "--body", corpus, "--source", one_line).exit_code == 0
    record = tmp_path / "rec.yaml"
    record.write_text(
        json.dumps({"title": "from a file", "text": corpus, "env": {"HF_TOKEN": secrets()[4], "OPENAI_API_KEY": secrets()[0]}})
    )
    assert cli("add", "command", "--id", "c1", "--from", str(record)).exit_code == 0
    assert (
        cli(
            "add",
            "reference",
            "--id",
            "r1",
            "--from",
            "-",
            input=json.dumps({"title": "x", "url": f"https://ann:{secrets()[0]}@example.com/x", "body": corpus}),
        ).exit_code
        == 0
    )
    assert cli("edit", "d1", "--field", "category=risk", "--body", corpus + "\nedited").exit_code == 0
    assert cli("status", "d1", "resolved", "--source", one_line).exit_code == 0
    assert (
        cli(
            "session",
            "new",
            "s2",
            "--title",
            "secrets " + secrets()[1],
            "--agent",
            one_line,
            "--repo",
            f"https://bob:{secrets()[2]}@git.example.com/r.git",
        ).exit_code
        == 0
    )
    # Import.
    md = tmp_path / "dump.md"
    one_liners = [text.format(s=s) for _, text, s in SECRETS if "\n" not in text]
    md.write_text(
        "## Goal\n\n- Ship it\n\n## Discoveries\n\n"
        + "\n".join(f"- {line}" for line in one_liners)
        + "\n\n## Deployment commands\n\n### Setup\n\n```bash\n"
        + corpus
        + "\n```\n"
    )
    assert cli("import", "markdown", str(md), "-s", "s1").exit_code == 0
    # MCP.
    got = call(
        store, lambda c: c.call_tool("add_record", {"kind": "discovery", "title": "via mcp", "body": corpus, "source": one_line[:200]})
    )
    assert not got.is_error
    got = call(
        store,
        lambda c: c.call_tool(
            "add_record", {"kind": "command", "title": "via mcp cmd", "text": corpus, "env": {"GITHUB_TOKEN": secrets()[5]}}
        ),
    )
    assert not got.is_error

    history = git(store.root, "log", "-p", "--all", "--format=%H%n%B")
    tags = git(store.root, "for-each-ref", "--format=%(contents)", "refs/tags")
    files = {str(p): p.read_text(errors="replace") for p in store.root.rglob("*") if p.is_file() and ".git" not in p.parts}
    for where, text in [("history", history), ("tags", tags), *files.items()]:
        leaked = [s for s in secrets() if s in text]
        assert leaked == [], (where, leaked)
        assert find_secrets(text) == [], where
    assert history.count("<redacted>") > len(SECRETS)
