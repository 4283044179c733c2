"""The resume prompt: what a new agent session needs to carry on where the last one stopped.

It restores the goal, the standing instructions verbatim with their message ids,
the accepted decisions (choice, why, the flags they enforce), the dead ends not to
retry, where things stand, the next steps, and the commands that verify the
deployment. Under a token budget it drops detail in the order of `DROP_ORDER`
and ends with one line saying what it left out. The same records always give the
same bytes: nothing here reads a clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from statedump.core.errors import StatedumpError
from statedump.core.store.files import write_text_atomic
from statedump.models.state import SessionState
from statedump.services.report.flavors import LAYOUTS
from statedump.services.report.parts import DROP_ORDER, Parts, select
from statedump.services.report.tokens import estimate_tokens

FLAVORS = tuple(LAYOUTS)
"""The `--for` choices."""

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

    @property
    def fits(self) -> bool:
        """True without a budget, or when the estimate is within it."""
        return self.budget is None or self.tokens <= self.budget

    def as_dict(self) -> dict[str, object]:
        return {"tokens": self.tokens, "budget": self.budget, "fits": self.fits, "left_out": self.left_out, "text": self.text}


def _draw(parts: Parts, flavor: str, omit: frozenset[str]) -> str:
    blocks = [b for b in LAYOUTS[flavor](parts, omit) if b]
    return "\n\n".join(blocks) + "\n"


def _footer(left_out: list[str], budget: int, fits: bool = True) -> str:
    words = dict(DROP_ORDER)
    listed = "; ".join(words[name] for name in left_out)
    if fits:
        return f"\n_Left out to fit {budget:,} tokens: {listed}. `statedump render` prints the whole state._\n"
    return f"\n_Over {budget:,} tokens even without {listed}; the rest is never left out. `statedump render` prints the whole state._\n"


def resume_prompt(state: SessionState, *, flavor: str = "plain", budget: int | None = None) -> Resume:
    """The prompt for `flavor`; with `budget`, detail is dropped in `DROP_ORDER` until it fits.

    When even the parts that are never dropped exceed the budget, the result keeps
    them anyway and `fits` is False: a prompt without the goal or the user's
    standing instructions would resume the wrong work.
    """
    if flavor not in LAYOUTS:
        raise StatedumpError(f"unknown agent {flavor!r}", where="--for", hint=f"choose one of: {', '.join(FLAVORS)}")
    if budget is not None and budget < 1:
        raise StatedumpError(f"the budget must be a positive number of tokens, not {budget}", where="--budget")
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
    final = candidate + _footer(left_out, budget, fits=False) if left_out else candidate
    return Resume(final, estimate_tokens(final), budget, left_out)


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
