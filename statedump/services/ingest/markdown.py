"""Markdown: statedump's own state document, or an agent's compaction / handoff summary.

statedump's rendering is read back exactly (see `statedump_doc`); anything else is read
section by section (see `summary`).
"""

from __future__ import annotations

from pathlib import Path

from statedump.core.clock import now
from statedump.services.ingest.jsonl import Progress, read_text
from statedump.services.ingest.plan import ImportPlan
from statedump.services.ingest.statedump_doc import looks_like_statedump, read_statedump
from statedump.services.ingest.summary import read_summary


def read_markdown_text(text: str, plan: ImportPlan, source: str | None = None) -> None:
    """Read Markdown text into `plan`, whichever kind of document it is."""
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
