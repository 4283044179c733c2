"""The state document's format, written down once.

`render.markdown` writes the document from these names and `services.ingest.statedump_doc`
reads it back from the same names, so a title, separator or column changed here changes
both sides and the round trip (render, import, render: the same bytes) still holds.

Plain Python on purpose: the readers load it without the models, and it holds no logic
beyond spelling a piece of the format and reading that piece back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# -- separators ----------------------------------------------------------------------------
SEP = " — "
"""Between a list item's head and its tail, a quote and its title, an option and why it lost."""
DOT = " · "
"""Between the bits of a tail (`extras · status · source · `id``) and of a status line."""
ARROW = " → "
"""Between a trade-off's before and after."""

# -- the header ----------------------------------------------------------------------------
SESSION = "Session "
"""How the line under the title starts: `Session `id` · model: … · branch: …`."""
SESSION_LABELS = ("model", "hardware", "agent", "repo", "branch")
"""The session fields the header line names, in order."""

# -- the `##` sections ---------------------------------------------------------------------
GOAL = "Goal"
INSTRUCTIONS = "Instructions"
DISCOVERIES = "Discoveries"
ACCOMPLISHED = "Accomplished"
NEXT_STEPS = "Next steps"
COMMANDS = "Deployment commands"
FILES = "Relevant files / directories"
REFERENCES = "References"

SPINE = (GOAL, INSTRUCTIONS, DISCOVERIES, ACCOMPLISHED)
"""The common compaction format's spine, first and in this order so that any agent knowing it reads the document."""
SECTIONS = (*SPINE, NEXT_STEPS, COMMANDS, FILES, REFERENCES)
"""Every `##` section, in the order the document has them."""


# -- tables --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Table:
    """A `###` part of Discoveries that is one table: its title and its columns as (key, header)."""

    title: str
    columns: tuple[tuple[str, str], ...]

    @property
    def header(self) -> list[str]:
        return [label for _, label in self.columns]

    def row(self, **cells: str) -> list[str]:
        """A body row from its cells by key, in column order."""
        keys = [key for key, _ in self.columns]
        if set(cells) != set(keys):
            raise ValueError(f"{self.title}: cells {sorted(cells)} are not the columns {keys}")
        return [cells[key] for key in keys]

    def read(self, cells: list[str], without: tuple[str, ...] = ()) -> dict[str, str] | None:
        """A body row's cells by key; None when it has not the columns (less `without`, read as blank)."""
        keys = [key for key, _ in self.columns if key not in without]
        if len(cells) != len(keys):
            return None
        return {**dict.fromkeys(without, ""), **dict(zip(keys, cells, strict=True))}

    def label(self, key: str) -> str:
        """One column's header."""
        return dict(self.columns)[key]


COMPAT = Table(
    "Compatibility matrix",
    (("component", "Component"), ("option", "Option"), ("target", "Target"), ("result", "Result"), ("symptom", "Symptom"), ("id", "Id")),
)
BENCHMARKS = Table(
    "Benchmarks",
    (
        ("title", "Benchmark"),
        ("concurrency", "Concurrency"),
        ("metric", "Metric"),
        ("value", "Value"),
        ("unit", "Unit"),
        ("baseline", "Baseline"),
        ("status", "Status"),
        ("id", "Id"),
    ),
)
"""One row a metric; a benchmark without metrics gets one row with blank metric cells."""
BENCHMARK_ADDED = ("status",)
"""Columns added since the first documents: a row without them is still read (see `Table.read`)."""
BASELINE = "yes"
"""The Baseline cell of a baseline run (blank otherwise)."""
STACK = Table(
    "Software stack",
    (("name", "Component"), ("version", "Version"), ("build", "Built / obtained"), ("status", "Status"), ("id", "Id")),
)

# -- inside the sections -------------------------------------------------------------------
CRITERIA = "Success criteria:"
"""The paragraph before a goal's criteria."""
STANDING = "standing"
ONE_OFF = "one-off"
"""What an instruction's tail says before its status."""

FINDINGS = "Findings"
RULED_OUT = "Ruled out (do not retry)"
DECISIONS = "Decisions"
DISCOVERY_PARTS = (FINDINGS, RULED_OUT, COMPAT.title, BENCHMARKS.title, DECISIONS, STACK.title)
"""The `###` parts of Discoveries, in order; a part with no records is left out."""

QUESTION = "Question"
CHOICE = "Choice"
REJECTED = "Rejected"
RATIONALE = "Rationale"
TRADEOFF = "Trade-off"
ENFORCES = "Enforces"
ENFORCES_ON = " on "
"""A decision's fact lines are `Label: value`; `Enforces: `setting` on `command`, …`."""


def relation_label(relation: str) -> str:
    """The fact line label of a link relation: `evidence_for` is `Evidence for: `a`, `b``."""
    return relation.replace("_", " ").capitalize()


TASK_GROUPS = (("done", "Done"), ("in-progress", "In progress"), ("blocked", "Blocked"), ("dropped", "Dropped"))
"""(task status, `###` title) of the groups under Accomplished, in order."""
NEXT_STATUSES = ("todo", "proposed")
"""The open tasks, listed under Next steps."""


def priority(n: int) -> str:
    """A task's priority as its tail shows it: `P1`."""
    return f"P{n}"


def priority_of(bit: str) -> int | None:
    """The priority a tail bit shows, or None when the bit is not one."""
    return int(bit[1:]) if re.fullmatch(r"P\d+", bit) else None


CURRENT = "current"
"""The command status the document does not name: current commands are the section itself."""
EARLIER = "Earlier and failed commands"
"""The `###` under Deployment commands holding every other command, one `####` each."""
LAST_GOOD = "last known good"
"""The bit a command's status line adds when it is the last one known to work."""
