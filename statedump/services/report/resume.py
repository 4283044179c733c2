"""The resume prompt: what a new agent session needs to carry on where the last one stopped.

It restores the goal, the standing instructions verbatim with their message ids,
the accepted decisions (choice, why, the flags they enforce), the current launch
command verbatim, the dead ends not to retry, the baseline benchmark figures, where
things stand, the next steps, and the commands that verify the deployment. Under a
token budget it drops detail in the order of `DROP_ORDER` and ends with one line saying
what it left out; if even the essentials do not fit, it is cut short at a paragraph,
so the prompt never exceeds the budget. The same records always give the same bytes:
nothing here reads a clock.

`resume_for()` is the entry point for anything holding a store (the CLI, the MCP
server, the agents' `SessionStart` hook); `resume_prompt()` works on a state already read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from statedump.core.errors import BadInput, StatedumpError
from statedump.core.store.files import write_text_atomic
from statedump.core.store.store import Store
from statedump.models.state import SessionState
from statedump.services.report.flavors import LAYOUTS
from statedump.services.report.parts import DROP_ORDER, Parts, select
from statedump.services.report.tokens import estimate_tokens

FLAVORS = tuple(LAYOUTS)
"""The `--for` choices."""

DEFAULT_BUDGET = 2000
"""Tokens an agent hook gives the prompt unless configured otherwise."""
MIN_BUDGET = 200
"""The smallest budget taken: below it not even the session line and the goal fit."""

BLOCK_START = "<!-- statedump:resume:start -->"
BLOCK_END = "<!-- statedump:resume:end -->"
BLOCK_NOTE = "<!-- Written by `statedump resume --agents-md`; this block is replaced each time it runs. -->"


@dataclass(frozen=True)
class Resume:
    """A resume prompt and what the budget did to it."""

    text: str
    """The prompt, Markdown, ending with a newline."""
    tokens: int
    """Its estimated size (`statedump.services.report.tokens.estimate_tokens`)."""
    budget: int | None = None
    """The budget asked for, if any."""
    left_out: list[str] = field(default_factory=list)
    """Names of the `DROP_ORDER` steps applied, in order, that removed something."""
    cut: bool = False
    """True when even the essentials did not fit and the prompt was cut short at a paragraph."""

    @property
    def fits(self) -> bool:
        """True without a budget, or when the estimate is within it (always, since the cut)."""
        return self.budget is None or self.tokens <= self.budget

    def as_dict(self) -> dict[str, object]:
        return {
            "tokens": self.tokens,
            "budget": self.budget,
            "fits": self.fits,
            "left_out": self.left_out,
            "cut": self.cut,
            "text": self.text,
        }


def _draw(parts: Parts, flavor: str, omit: frozenset[str]) -> str:
    blocks = [b for b in LAYOUTS[flavor](parts, omit) if b]
    return "\n\n".join(blocks) + "\n"


def _footer(left_out: list[str], budget: int) -> str:
    words = dict(DROP_ORDER)
    listed = "; ".join(words[name] for name in left_out)
    return f"\n_Left out to fit {budget:,} tokens: {listed}. `statedump render` prints the whole state._\n"


# Worded like the other footer, so that whoever reads the budget back from a written block
# (the capture hook refreshing CLAUDE.md) finds it in either.
CUT_FOOTER = (
    "\n_Left out to fit {budget:,} tokens: every detail that can be left out, and the rest of the prompt from here on. "
    "`statedump render` prints the whole state._\n"
)


def _cut_points(text: str) -> list[int]:
    """Offsets just before each blank line outside a fenced block: where a cut leaves whole paragraphs."""
    points, offset, fenced = [], 0, False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not line.strip() and not fenced:
            points.append(offset)
        offset += len(line)
    return points


def _cut(text: str, budget: int) -> str:
    """The longest run of whole paragraphs from the top that fits with the cut footer.

    The neutral layout puts the goal, the standing instructions and the decisions first, so
    they are what a cut keeps. A heading left without its paragraphs goes too.
    """
    footer = CUT_FOOTER.format(budget=budget)
    points = [0, *_cut_points(text)]
    lo, hi = 0, len(points) - 1  # the estimate only grows with the prefix: bisect for the last point that fits
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if estimate_tokens(text[: points[mid]] + "\n" + footer) <= budget:
            lo = mid
        else:
            hi = mid - 1
    while lo and _is_heading(text[points[lo - 1] : points[lo]]):
        lo -= 1
    head = text[: points[lo]].rstrip("\n")
    return (head + "\n" + footer) if head else footer.lstrip("\n")


def _is_heading(paragraph: str) -> bool:
    stripped = paragraph.strip()
    return stripped.startswith("#") and "\n" not in stripped


def resume_prompt(state: SessionState, *, flavor: str = "plain", budget: int | None = None) -> Resume:
    """The prompt for `flavor`; with `budget`, detail is dropped in `DROP_ORDER` until it fits.

    When even the parts that are never dropped exceed the budget, the neutral layout is cut
    short at the last whole paragraph that fits (`cut` is True): it starts with the goal, the
    standing instructions and the decisions, so those survive the longest, and the result
    never exceeds the budget by `estimate_tokens`.
    """
    if flavor not in LAYOUTS:
        raise BadInput(f"unknown agent {flavor!r}", where="--for", hint=f"choose one of: {', '.join(FLAVORS)}")
    if budget is not None and budget < MIN_BUDGET:
        raise BadInput(f"the budget must be at least {MIN_BUDGET} tokens, not {budget}", where="--budget")
    parts = select(state)
    text = _draw(parts, flavor, frozenset())
    if budget is None or estimate_tokens(text) <= budget:
        return Resume(text, estimate_tokens(text), budget)
    left_out: list[str] = []
    omit: set[str] = set()
    candidate = text
    for name, _words in DROP_ORDER:
        omit.add(name)
        shorter = _draw(parts, flavor, frozenset(omit))
        if shorter == candidate:
            continue  # nothing of this kind was shown: do not claim to have dropped it
        left_out.append(name)
        candidate = shorter
        final = candidate + _footer(left_out, budget)
        if estimate_tokens(final) <= budget:
            return Resume(final, estimate_tokens(final), budget, left_out)
    # Cut the neutral layout whatever the agent: its sections come in the order of value, so
    # the goal, the user's words and the decisions are the last to go (Claude's and Codex's
    # own spines put the user's messages after the decisions and the files).
    final = _cut(candidate if flavor == "plain" else _draw(parts, "plain", frozenset(omit)), budget)
    return Resume(final, estimate_tokens(final), budget, left_out, cut=True)


def resume_for(store: Store, session: str | None = None, *, flavor: str = "plain", budget: int | None = DEFAULT_BUDGET) -> Resume:
    """The resume prompt of `session` (the store's only or current one when None), for
    `flavor`, within `budget` tokens (None: no limit).

    The one call for a caller holding a store — an agent's `SessionStart` hook passes its
    configured budget; it raises `StatedumpError` (bad input, no such session), never
    anything else for a readable store.
    """
    return resume_prompt(store.load(store.pick_session(session)), flavor=flavor, budget=budget)


def _block(text: str) -> str:
    return f"{BLOCK_START}\n{BLOCK_NOTE}\n\n{text.rstrip(chr(10))}\n\n{BLOCK_END}"


def splice_block(existing: str, text: str) -> str:
    """`existing` with its statedump block replaced by one holding `text`, or the block appended.

    Everything outside the block is kept byte for byte; a file written with CRLF
    line ends gets the block with CRLF too.
    """
    newline = "\r\n" if "\r\n" in existing else "\n"
    block = _block(text).replace("\n", newline)
    starts, ends = existing.count(BLOCK_START), existing.count(BLOCK_END)
    if starts == 0 and ends == 0:
        if not existing:
            return block + newline
        sep = "" if existing.endswith("\n") else newline
        return existing + sep + newline + block + newline
    if starts != 1 or ends != 1 or existing.index(BLOCK_START) > existing.index(BLOCK_END):
        raise StatedumpError(
            f"the statedump block markers are broken ({starts} start, {ends} end)",
            hint=f"leave exactly one {BLOCK_START} line before one {BLOCK_END} line, or remove both",
        )
    head = existing[: existing.index(BLOCK_START)]
    tail = existing[existing.index(BLOCK_END) + len(BLOCK_END) :]
    return head + block + tail


def write_agents_md(path: Path, text: str) -> bool:
    """Put `text` into the marked block of an AGENTS.md / CLAUDE.md file (created if missing).

    Returns False when the file already held exactly this block. The file is
    replaced atomically; on bad markers nothing is written.
    """
    if path.is_dir():
        raise StatedumpError("expected a file, found a folder", where=path, hint="name the AGENTS.md or CLAUDE.md file itself")
    try:
        existing = path.read_bytes().decode("utf-8") if path.exists() else ""
    except UnicodeDecodeError:
        raise StatedumpError("the file is not UTF-8 text", where=path, hint="convert it to UTF-8 first") from None
    try:
        updated = splice_block(existing, text)
    except StatedumpError as err:
        raise StatedumpError(err.message, where=path, hint=err.hint) from None
    if updated == existing:
        return False
    if not path.parent.is_dir():
        raise StatedumpError("the folder does not exist", where=path.parent, hint="create it first")
    write_text_atomic(path, updated)  # the line ends exactly as spliced
    return True
