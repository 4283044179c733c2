"""Markdown: statedump's own state document, or an agent's compaction / handoff summary.

statedump's rendering is read back exactly (see `statedump_doc`); anything else is read
section by section (see `summary`).
"""

from __future__ import annotations

import re
from pathlib import Path

from statedump.core.clock import now
from statedump.services.ingest.jsonl import Progress, read_text
from statedump.services.ingest.plan import ImportPlan
from statedump.services.ingest.statedump_doc import looks_like_statedump, read_statedump
from statedump.services.ingest.summary import read_summary

_HANDOFF = re.compile(r"\A# Handoff: (?P<title>.+)\n(?:.*\n)*?## State document\n", re.M)


def state_document_of_handoff(text: str) -> str | None:
    """The state document a `statedump handoff` report carries under `## State document`, its
    headings one level up again and its title back; None when `text` is no such report.

    The report's own parts (what changed, open questions, the trend) only repeat the records;
    read as a summary they made records titled "added", "changed"."""
    m = _HANDOFF.match(text)
    if not m:
        return None
    out = [f"# {m.group('title')}", ""]
    fence: str | None = None
    for line in text[m.end() :].split("\n"):
        marker = re.match(r"^(`{3,}|~{3,})", line)
        if marker and (fence is None or line.startswith(fence)):
            fence = marker.group(1) if fence is None else None
        elif fence is None and re.match(r"^#{3,6} ", line):
            line = line[1:]  # the report nests the document one level down
        out.append(line)
    return "\n".join(out)


def read_markdown_text(text: str, plan: ImportPlan, source: str | None = None) -> None:
    """Read Markdown text into `plan`, whichever kind of document it is."""
    inner = state_document_of_handoff(text)
    if inner is not None and looks_like_statedump(inner):
        text = inner
    if looks_like_statedump(text):
        read_statedump(text, plan, now())
    else:
        read_summary(text, plan, source=source, base=now())


def read(path: Path, progress: Progress | None = None) -> ImportPlan:
    """Read a Markdown file into a plan."""
    text = read_text(path, "Markdown")
    plan = ImportPlan("markdown", path)
    if not text.strip():
        from statedump.core.errors import StatedumpError

        raise StatedumpError("the file holds only blank lines; expected a Markdown document", where=path)
    read_markdown_text(text, plan, source=path.name)
    if progress is not None:
        progress(1, 1)
    return plan
