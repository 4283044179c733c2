"""The session: one long piece of work whose records live together."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from statedump.models.base import Model, RecordId


class Checkpoint(Model):
    """A point where the session's state was dumped (an empty user turn, then a state dump)."""

    at: datetime
    """When the dump was written; records up to this moment belong to it."""
    source: str | None = None
    """Where the dump is, e.g. `msg 5856`."""
    message: str | None = None
    """What the dump was about."""


class Session(Model):
    """A session: title, what it runs on, where it happened."""

    id: RecordId
    """Readable slug, e.g. `qwen35-397b-a17b-nvfp4`; the folder name under `sessions/`."""
    title: str = Field(min_length=1, max_length=300)
    """One line that says what the session is about."""
    status: Literal["active", "closed"] = "active"
    """`active` while work goes on."""
    model: str | None = None
    """The model being deployed or tuned."""
    hardware: str | None = None
    """The machine it runs on."""
    agent: str | None = None
    """The coding agent or person doing the work."""
    repo: str | None = None
    """Repository the work happened in."""
    branch: str | None = None
    """Git branch of that repository."""
    cwd: str | None = None
    """Working directory of the agent."""
    started: datetime | None = None
    """When the session began."""
    checkpoints: list[Checkpoint] = Field(default_factory=list)
    """State dumps known from before the store existed; `statedump demo` and imports tag them."""
    tags: list[str] = Field(default_factory=list)
    """Free labels."""
    body: str | None = None
    """Longer Markdown description."""
