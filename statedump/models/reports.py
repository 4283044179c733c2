"""What the audit and report services gather: why a decision was made, and the handoff
report. Plain data, so that the renderers (Markdown, JSON, terminal) take it without
importing the services that build it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from statedump.models.base import RecordBase
from statedump.models.history import Entry, RecordDiff
from statedump.models.kinds import Benchmark, Command, Decision, Enforcement, Instruction, Task
from statedump.models.state import SessionState


class EnforcedBy(NamedTuple):
    """One enforcement of the decision and whether the command carries it out."""

    enforcement: Enforcement
    command: Command | None
    """The command record, or None when the decision names one that does not exist."""
    present: bool
    """True when the command's text or env sets the flag or variable to the enforced value."""
    actual: list[str | None] | None = None
    """What the command sets the flag or variable to (None for a flag given without a value);
    None when it does not set it or does not exist."""


@dataclass
class WhyReport:
    """Everything known about why a decision was made."""

    decision: Decision
    prompted_by: list[Instruction] = field(default_factory=list)
    """The user's instructions behind it: directly, or behind its evidence."""
    evidence: list[RecordBase] = field(default_factory=list)
    """Linked evidence of any kind: discoveries, benchmarks, compat cells, references, files."""
    related: list[RecordBase] = field(default_factory=list)
    """Records it `relates_to`."""
    enforcing: list[EnforcedBy] = field(default_factory=list)
    """Each enforced flag or variable, its command, and whether the command carries it."""
    enforcing_commands: list[Command] = field(default_factory=list)
    """Commands linked with `enforces` that no flag-level enforcement names."""
    supersedes: list[Decision] = field(default_factory=list)
    superseded_by: list[Decision] = field(default_factory=list)
    recorded: Entry | None = None
    """The commit that added the decision."""
    last_changed: Entry | None = None
    """The latest commit that changed it."""
    review_reasons: list[str] = field(default_factory=list)
    """Why the decision needs review; empty when it does not."""
    also_matching: list[Decision] = field(default_factory=list)
    """Other decisions the query matched."""
    missing: list[str] = field(default_factory=list)
    """Linked ids that name no record."""


TREND_METRIC = "output_throughput"
"""The benchmark metric the handoff's trend plots against concurrency."""


@dataclass(frozen=True)
class TrendPoint:
    """One benchmark's value of the trend metric at one concurrency."""

    concurrency: int
    value: float
    unit: str
    benchmark: Benchmark


@dataclass
class Handoff:
    """Everything the handoff report shows, gathered once for the Markdown and the terminal."""

    state: SessionState
    generated: datetime
    since_ref: str | None
    """The ref compared against (a dump tag by default); None when the session has no dump."""
    since_sha: str | None
    changes: list[RecordDiff] = field(default_factory=list)
    proposed: list[Decision] = field(default_factory=list)
    blocked: list[Task] = field(default_factory=list)
    review: list[tuple[Decision, list[str]]] = field(default_factory=list)
    good_commands: list[Command] = field(default_factory=list)
    trend: list[TrendPoint] = field(default_factory=list)
