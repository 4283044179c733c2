"""The eleven record kinds. Each closes its status set and adds the fields it needs."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, model_validator

from statedump.models.base import Model, RecordBase, RecordId
from statedump.models.ids import KIND_NAMES


class Goal(RecordBase):
    """What the session is for, and how we know it is done."""

    KIND: ClassVar[str] = "goal"
    STATUSES: ClassVar[tuple[str, ...]] = ("active", "achieved", "abandoned")
    kind: Literal["goal"] = "goal"
    status: Literal["active", "achieved", "abandoned"] = "active"
    """`active` while pursued; `achieved` or `abandoned` at the end."""
    criteria: list[str] = Field(default_factory=list)
    """Success criteria, one per item."""


class Instruction(RecordBase):
    """The user's own words, kept verbatim, and whether they still bind the work."""

    KIND: ClassVar[str] = "instruction"
    STATUSES: ClassVar[tuple[str, ...]] = ("active", "done", "superseded")
    kind: Literal["instruction"] = "instruction"
    status: Literal["active", "done", "superseded"] = "active"
    """`active` while it applies; `done` once carried out; `superseded` when replaced."""
    quote: str = Field(min_length=1)
    """The user's message exactly as written."""
    standing: bool = False
    """True for a constraint that holds for the rest of the session, false for a one-off request."""


class Discovery(RecordBase):
    """Something learned: a finding, a risk, or a hypothesis ruled out (a dead end)."""

    KIND: ClassVar[str] = "discovery"
    STATUSES: ClassVar[tuple[str, ...]] = ("confirmed", "suspected", "ruled-out", "resolved")
    kind: Literal["discovery"] = "discovery"
    status: Literal["confirmed", "suspected", "ruled-out", "resolved"] = "confirmed"
    """`confirmed` or `suspected`; `ruled-out` for a dead end not to retry; `resolved` for a fixed risk."""
    category: Literal["finding", "risk", "dead-end"] = "finding"
    """What sort of discovery this is."""


class Compat(RecordBase):
    """One cell of a compatibility matrix: component x option x target -> result."""

    KIND: ClassVar[str] = "compat"
    STATUSES: ClassVar[tuple[str, ...]] = ("works", "fails", "partial", "untested")
    kind: Literal["compat"] = "compat"
    status: Literal["works", "fails", "partial", "untested"] = "untested"
    """The result of trying the option on the target."""
    component: str = Field(min_length=1)
    """What was varied, e.g. `MoE runner backend`."""
    option: str = Field(min_length=1)
    """The value tried, e.g. `flashinfer_cutlass`."""
    target: str = Field(min_length=1)
    """Where it was tried, e.g. `SM120 (RTX PRO 6000 Blackwell)`."""
    versions: dict[str, str] = Field(default_factory=dict)
    """Versions in force when it was tried."""
    symptom: str | None = None
    """What was seen when it did not work."""
    repro: str | None = None
    """How to reproduce the result."""


class Metric(Model):
    """One measured value with its unit."""

    name: str = Field(min_length=1)
    """Metric name, e.g. `output_throughput`."""
    value: float
    """The measured value."""
    unit: str = Field(min_length=1)
    """Unit, e.g. `tok/s`, `ms`."""


class Benchmark(RecordBase):
    """A measured result: workload, concurrency, metrics with units, environment."""

    KIND: ClassVar[str] = "benchmark"
    STATUSES: ClassVar[tuple[str, ...]] = ("valid", "stale", "invalid")
    kind: Literal["benchmark"] = "benchmark"
    status: Literal["valid", "stale", "invalid"] = "valid"
    """`valid` while the setup it measured is current; `stale` after the setup changed; `invalid` if wrong."""
    workload: str | None = None
    """What was sent: dataset, input and output lengths, prompts."""
    concurrency: int | None = Field(default=None, ge=1)
    """Requests in flight at once."""
    request_rate: float | None = None
    """Requests per second offered; infinity for as fast as possible."""
    metrics: list[Metric] = Field(default_factory=list)
    """The measured values."""
    environment: dict[str, str] = Field(default_factory=dict)
    """Fingerprint of what was measured: model, backend, versions, key server args."""
    baseline: bool = False
    """True when later results are compared against this one."""

    def metric(self, name: str) -> Metric | None:
        """The metric with this name, if recorded."""
        return next((m for m in self.metrics if m.name == name), None)


class Alternative(Model):
    """An option that was considered and not chosen."""

    option: str = Field(min_length=1)
    """The option, e.g. `FP8 KV cache (fp8_e4m3)`."""
    why_not: str = Field(min_length=1)
    """Why it was not chosen."""


class Tradeoff(Model):
    """What the choice costs or gains, with numbers where there are any."""

    aspect: str = Field(min_length=1)
    """What changes, e.g. `KV cache capacity`."""
    before: str | None = None
    """The value without the choice."""
    after: str | None = None
    """The value with the choice."""
    unit: str | None = None
    """Unit of before and after."""
    note: str | None = None
    """What the change means."""


class Enforcement(Model):
    """A flag or environment value of a command record that carries out a decision."""

    command: RecordId
    """Id of the command record."""
    flag: str | None = None
    """Command-line flag, e.g. `--kv-cache-dtype`."""
    env: str | None = None
    """Environment variable, e.g. `NCCL_P2P_LEVEL`."""
    value: str | None = None
    """The value it must have; omit when the flag takes none."""

    def setting(self) -> str:
        """How it reads in a command: `--kv-cache-dtype bf16` or `NCCL_P2P_LEVEL=SYS`."""
        if self.flag is not None:
            return f"{self.flag} {self.value}" if self.value is not None else self.flag
        return f"{self.env}={self.value or ''}"

    @model_validator(mode="after")
    def _one_target(self) -> Enforcement:
        if (self.flag is None) == (self.env is None):
            raise ValueError("an enforcement names exactly one of `flag` or `env`")
        return self


class Decision(RecordBase):
    """A choice made: the question, the choice, what was rejected and why, what it costs."""

    KIND: ClassVar[str] = "decision"
    STATUSES: ClassVar[tuple[str, ...]] = ("proposed", "accepted", "superseded", "rejected")
    kind: Literal["decision"] = "decision"
    status: Literal["proposed", "accepted", "superseded", "rejected"] = "proposed"
    """Lifecycle: `proposed`, then `accepted` or `rejected`; `superseded` when replaced."""
    question: str | None = None
    """The question the decision answers."""
    choice: str = Field(min_length=1)
    """What was chosen."""
    alternatives: list[Alternative] = Field(default_factory=list)
    """Options considered and rejected, each with why not."""
    rationale: str | None = None
    """Why this choice."""
    tradeoffs: list[Tradeoff] = Field(default_factory=list)
    """What the choice costs and gains."""
    enforces: list[Enforcement] = Field(default_factory=list)
    """Exact flags or environment values of command records that carry it out."""
    deciders: list[str] = Field(default_factory=list)
    """Who made or approved it."""

    def settings_by_command(self) -> dict[str, list[str]]:
        """Each enforced setting and the commands that must carry it, in the order written."""
        out: dict[str, list[str]] = {}
        for e in self.enforces:
            out.setdefault(e.setting(), []).append(e.command)
        return out

    def link_pairs(self) -> list[tuple[str, str]]:
        pairs = super().link_pairs()
        pairs += [("enforces", e.command) for e in self.enforces if ("enforces", e.command) not in pairs]
        return pairs

    def text_fields(self) -> list[str]:
        out = [*super().text_fields(), self.choice]
        out += [t for t in (self.question, self.rationale) if t]
        out += [f"{a.option} {a.why_not}" for a in self.alternatives]
        out += [f"{t.aspect} {t.before or ''} {t.after or ''} {t.note or ''}" for t in self.tradeoffs]
        out += [f"{e.flag or e.env} {e.value or ''}" for e in self.enforces]
        return out


class Task(RecordBase):
    """Work: done, under way, or proposed as a next step."""

    KIND: ClassVar[str] = "task"
    STATUSES: ClassVar[tuple[str, ...]] = ("proposed", "todo", "in-progress", "done", "blocked", "dropped")
    kind: Literal["task"] = "task"
    status: Literal["proposed", "todo", "in-progress", "done", "blocked", "dropped"] = "todo"
    """`proposed` for a suggested next step nobody has agreed to yet."""
    priority: int | None = Field(default=None, ge=1)
    """1 is the most urgent."""
    impact: str | None = None
    """What doing it is expected to bring."""


class Command(RecordBase):
    """A deployment command kept verbatim: a shell line, a systemd unit, an environment block."""

    KIND: ClassVar[str] = "command"
    STATUSES: ClassVar[tuple[str, ...]] = ("current", "previous", "failed")
    kind: Literal["command"] = "command"
    status: Literal["current", "previous", "failed"] = "current"
    """`current` is what runs now; `previous` was replaced; `failed` did not work."""
    form: Literal["shell", "systemd", "env"] = "shell"
    """How `text` is written."""
    text: str = Field(min_length=1)
    """The command exactly as run, copy-pasteable."""
    env: dict[str, str] = Field(default_factory=dict)
    """Environment it runs with, when not already inside `text`."""
    purpose: str | None = None
    """What it is for."""
    last_known_good: bool = False
    """True when it was last seen to work."""

    def text_fields(self) -> list[str]:
        return super().text_fields() + [self.text] + [f"{k}={v}" for k, v in self.env.items()]


class Component(RecordBase):
    """A piece of the software stack: name, version and how it was built."""

    KIND: ClassVar[str] = "component"
    STATUSES: ClassVar[tuple[str, ...]] = ("installed", "replaced", "planned")
    kind: Literal["component"] = "component"
    status: Literal["installed", "replaced", "planned"] = "installed"
    """`installed` now; `replaced` by a later version; `planned`."""
    name: str = Field(min_length=1)
    """Package or tool name."""
    version: str | None = None
    """Version string."""
    build: str | None = None
    """How it was obtained or built."""


class File(RecordBase):
    """A file or directory that matters, and why."""

    KIND: ClassVar[str] = "file"
    STATUSES: ClassVar[tuple[str, ...]] = ("relevant", "obsolete")
    kind: Literal["file"] = "file"
    status: Literal["relevant", "obsolete"] = "relevant"
    """`relevant` while it matters."""
    path: str = Field(min_length=1)
    """Path as the session used it."""


class Reference(RecordBase):
    """An outside source and what it gave."""

    KIND: ClassVar[str] = "reference"
    STATUSES: ClassVar[tuple[str, ...]] = ("used", "unread", "outdated")
    kind: Literal["reference"] = "reference"
    status: Literal["used", "unread", "outdated"] = "used"
    """`used` when it informed the work."""
    url: str = Field(min_length=1)
    """Where it is."""


Record = Goal | Instruction | Discovery | Compat | Benchmark | Decision | Task | Command | Component | File | Reference
"""Any record."""

KINDS: dict[str, type[RecordBase]] = {
    cls.KIND: cls for cls in (Goal, Instruction, Discovery, Compat, Benchmark, Decision, Task, Command, Component, File, Reference)
}
"""Kind name -> model, in the order the state document presents them."""
assert tuple(KINDS) == KIND_NAMES, "statedump.models.ids.KIND_NAMES must list the kinds in this order"

HEAD_FIELDS = ("id", "kind", "title", "status", "at", "source")
TAIL_FIELDS = ("tags", "links", "body")


def field_order(cls: type[RecordBase]) -> list[str]:
    """Field order for files: common head, the kind's own fields, then tags, links, body."""
    own = [f for f in cls.model_fields if f not in HEAD_FIELDS and f not in TAIL_FIELDS]
    return [*HEAD_FIELDS, *own, *TAIL_FIELDS]
