"""What `statedump drift` reads and finds: the live configuration of a server and how it
compares with the recorded decisions and commands. Plain data, so that the renderers take
it without importing the services that build it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Origin = Literal["unit", "process", "http", "compose", "inspect"]
Holds = Literal["present", "absent", "contradicted", "unknown"]


@dataclass
class Live:
    """One running (or deployed) server's configuration, from wherever it was read."""

    source: str
    """What was read, as the user would name it: `unit /etc/systemd/system/x.service`, `pid 4242`."""
    origin: Origin
    text: str
    """The configuration as a command record would hold it: the unit text (drop-ins and
    environment files folded in) for a unit, the shell-quoted command line otherwise."""
    form: Literal["shell", "systemd"] = "shell"
    flags: dict[str, list[str | None]] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    server: str | None = None
    """`sglang`, `vllm` or `trtllm` when the command line (or the endpoint) says which."""
    env_known: bool = True
    """False when the environment could not be read (another user's process, an HTTP endpoint)."""
    whole_environment: bool = False
    """True when `env` is a process's whole environment: variables no record sets are not drift."""
    all_flags: bool = False
    """True when `flags` lists every server argument with its default (an HTTP endpoint):
    flags no record sets are not drift, and a flag the server does not report is unknown."""


@dataclass
class SettingCheck:
    """One setting an accepted decision enforces, against one live configuration."""

    decision: str
    setting: str
    """As the decision writes it: `--kv-cache-dtype bf16`, `NCCL_P2P_LEVEL=SYS`."""
    commands: list[str]
    """The command records the decision names for it."""
    holds: Holds
    live: str | None = None
    """What the live configuration sets, written the same way; None when it sets nothing."""
    prompted_by: list[str] = field(default_factory=list)
    """The user's words behind the decision: `“quote” (msg 6007)`."""


@dataclass
class FlagDiff:
    """A flag or variable where a command record and the live configuration disagree."""

    name: str
    change: Literal["added", "removed", "changed"]
    recorded: str | None
    live: str | None


@dataclass
class CommandDrift:
    """How one current command record differs from one live configuration."""

    command: str
    diffs: list[FlagDiff] = field(default_factory=list)


@dataclass
class LiveDrift:
    """Everything compared for one live configuration."""

    live: Live
    settings: list[SettingCheck] = field(default_factory=list)
    commands: list[CommandDrift] = field(default_factory=list)
    unmatched: bool = False
    """True when no current command record runs this server: nothing recorded says how it should run."""

    @property
    def holds(self) -> bool:
        return (
            not self.unmatched and all(s.holds in ("present", "unknown") for s in self.settings) and not any(c.diffs for c in self.commands)
        )


@dataclass
class DriftReport:
    session: str
    lives: list[LiveDrift] = field(default_factory=list)
    recorded: list[str] = field(default_factory=list)
    """Ids of the records `--record` wrote (or found unchanged)."""

    @property
    def holds(self) -> bool:
        return all(d.holds for d in self.lives)
