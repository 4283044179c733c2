"""What an agent reported: the reply that closed its turn, and a subagent's answer to the call
that started it. A report says what was found and done ("The directory is empty", "Commit
SHA: 9877e04…", "Next.js 15.5.2, upgraded from v14"): it is kept whole as a discovery, so
nothing in it is lost, and titled by its first line. A short reply ("Done.", "Waiting for
their replies") is no report, nor is an answer to the person's thanks ("You're welcome! …")."""

from __future__ import annotations

import re
from datetime import datetime

from statedump.models import Discovery, Links
from statedump.services.ingest.plan import ImportPlan, one_line

_MIN = 200
"""Characters a reply needs (or two lines of text) to be a report rather than a remark."""
_MAX = 6000


_PLEASANTRY = re.compile(
    r"^\W*(?:you're welcome|you are welcome|glad|happy to help|no problem|anytime|my pleasure|thanks|thank you)\b", re.I
)
"""A reply to the person's thanks: chit-chat, however long, unless it goes on to say more."""


def is_report(text: str) -> bool:
    """Whether a closing reply says enough to keep (and is no pleasantry)."""
    said = text.strip()
    lines = [line for line in said.splitlines() if line.strip()]
    if _PLEASANTRY.match(said) and len(said) < 400:
        return False
    return len(said) >= _MIN or (len(lines) >= 2 and len(said) >= 80)


def report(
    plan: ImportPlan,
    text: str,
    source: str,
    at: datetime | None,
    *,
    tags: list[str],
    who: str | None = None,
    task: str | None = None,
) -> Discovery | None:
    """The report as a discovery (`who`: the subagent that wrote it; `task`: the task record
    of the call that started it, linked)."""
    said = text.strip()
    if not is_report(said):
        return None
    # (The title needs only the first line: redacting the whole reply for it cost more than
    # the rest of the record. A first line longer than this is cut to 160 characters anyway.)
    head = one_line(said[:2000], 160)
    record = Discovery(
        id=plan.readable_id("disc", f"report {head}", key=f"report:{source}:{task or ''}"),
        title=f"{who} reported: {head}"[:200] if who else head,
        body=said[:_MAX],
        source=source or None,
        at=at,
        tags=[*tags, "report"],
        links=Links(relates_to=[task]) if task else Links(),
    )
    plan.add(record)
    return record
