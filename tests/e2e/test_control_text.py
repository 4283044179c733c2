"""Terminal control sequences and bidi overrides from records, keys, file names and imports never
reach an output raw: error lines (a YAML key, a `kind` value, a file name holding OSC 0 or
OSC 8), `--json` (C1 controls and DEL escaped, the value kept), and the Markdown of an imported
summary (its HTML, images and links escaped to text in `render`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import Cli, snapshot
from markdown_it import MarkdownIt

from statedump.core.safetext import BIDI
from statedump.core.store.store import Store

OSC_TITLE = "\x1b]0;pwned-title\x07"
Y_TITLE = "\\e]0;pwned-title\\a"
Y_LINK = "\\e]8;;http://evil.example/\\e\\\\click\\e]8;;\\e\\\\"
"""The same sequences as a YAML double-quoted string writes them (a raw ESC is no YAML)."""
OSC_LINK = "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\"
RAW = ["\x1b", "\x07", "\x9b", "\x85", "\x7f", *BIDI]
"""What no output may carry: ESC, BEL, C1 CSI and NEL, DEL, every bidi override."""


def _run(store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "STATEDUMP_STORE": str(store)}
    return subprocess.run([sys.executable, "-m", "statedump", *args], capture_output=True, text=True, env=env, cwd=store, timeout=60)


def _clean(text: str) -> bool:
    return not any(ch in text for ch in RAW)


def test_error_lines_carry_no_control_sequence(store: Store) -> None:
    folder = store.root / "sessions/s1/discovery"
    folder.mkdir(parents=True)
    cases = {
        "yaml-key.yaml": f'id: yaml-key\nkind: discovery\ntitle: t\n"{Y_TITLE}x": 1\n',
        "kind-value.yaml": f'id: kind-value\nkind: "{Y_LINK}"\ntitle: t\n',
        f"name{OSC_TITLE}\u202e.yaml": "id: x\nkind: discovery\ntitle: t\n",
        "status-value.yaml": 'id: status-value\nkind: discovery\ntitle: t\nstatus: "open\\x9b31m\\u202egnp.exe"\n',
    }
    for name, text in cases.items():
        for other in folder.iterdir():
            other.unlink()
        (folder / name).write_text(text)
        before = snapshot(store.root)
        for args in (("list",), ("validate",), ("render",)):
            got = _run(store.root, *args)
            assert got.returncode == 2, (name, args, got.stderr)
            assert _clean(got.stderr) and _clean(got.stdout), (name, args, repr(got.stderr))
            assert len(got.stderr.strip().splitlines()) == 1, (name, args, got.stderr)
            if not name.startswith("status"):  # a bad status is not quoted back
                assert "\u241b" in got.stderr or "\ufffd" in got.stderr, (name, args, got.stderr)  # shown, not dropped
        assert snapshot(store.root) == before


def test_json_output_escapes_c1_del_and_bidi_and_keeps_the_value(cli: Cli) -> None:
    title = "evil \x9b31m C1 \x85 NEL \x7f DEL \u202e bidi \u2066 isolate"
    assert cli("add", "discovery", "--id", "d", "--title", title, "--body", f"body {OSC_TITLE} {OSC_LINK}").exit_code == 0
    for args in (("show", "d", "--json"), ("list", "--json")):
        out = cli(*args).output
        assert _clean(out), (args, repr(out))
        data = json.loads(out)
        record = data if args[0] == "show" else next(r for r in data["records"] if r["id"] == "d") if isinstance(data, dict) else data[0]
        assert record["title"] == title


def test_an_imported_summary_renders_as_text(cli: Cli, store: Store, tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text(
        "# Session summary\n\n## Key Findings\n\n"
        "- Tracking pixel: the server is slow ![x](http://evil.example/pixel.png) under load\n"
        '- Raw HTML: the cache <img src="http://evil.example/i.png" onerror="alert(1)"> fills up at 90%\n'
        "- A link: the fix is [here](javascript:alert(1)) and <http://evil.example/auto> for details\n"
        "- Title trick: the log shows " + OSC_TITLE + " and " + OSC_LINK + " in the output\n"
    )
    got = cli("import", "markdown", str(summary), "-s", "s1")
    assert got.exit_code == 0, got.output
    doc = cli("render").output
    assert _clean(doc)
    assert "evil.example/pixel.png" in doc  # kept as text
    live = [
        t.type
        for block in MarkdownIt("commonmark").parse(doc)
        for t in [block, *(block.children or [])]
        if t.type in ("image", "link_open", "html_inline", "html_block")
    ]
    assert live == []
