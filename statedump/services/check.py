"""Consistency checks of one state: drift between decisions and the commands that carry
them out, dangling links, conflicts between instructions and decisions, and benchmarks
that lost the command that produced them.

`check()` is pure: it reads a `SessionState` and returns findings, one per problem, in
a stable order. The CLI prints one line per finding and exits 1 when there is any.
The rules are documented in docs/check.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from statedump.core.errors import a
from statedump.models import Benchmark, Command, Decision, Enforcement, Instruction
from statedump.models.state import SessionState
from statedump.services.flags import ParsedCommand, parse_command

CODES = (
    "enforcement-missing",
    "enforcement-contradicted",
    "enforcement-not-current",
    "dangling-link",
    "instruction-contradicted",
    "superseded-still-enforced",
    "benchmark-command-missing",
    "benchmark-command-changed",
    "decision-needs-review",
)
"""Every finding code, in the order findings are reported. The last two come from history
(`services.review.history_findings`) and are advisory: see `ADVISORY`."""

ADVISORY = frozenset({"benchmark-command-changed", "decision-needs-review"})
"""Codes that fail `check` only with `--strict`: they ask for a person's judgement
(re-measure, re-read the evidence), not a fix in the records."""


def failing(findings: list[Finding], strict: bool = False) -> list[Finding]:
    """The findings that make `check` exit 1: all of them with `strict`, else all but the advisory ones."""
    return list(findings) if strict else [f for f in findings if f.code not in ADVISORY]


@dataclass(frozen=True)
class Finding:
    """One problem: a stable code, the record (or records) at fault, and what is wrong."""

    code: str
    where: str
    """`kind/id` of the record at fault, e.g. `decision/bf16-kv-cache`."""
    message: str

    def line(self) -> str:
        """The finding as one line of text."""
        return f"{self.code}: {self.where}: {self.message}"


def _parsed(command: Command, cache: dict[str, ParsedCommand]) -> ParsedCommand:
    if command.id not in cache:
        cache[command.id] = parse_command(command.text, command.form, command.env)
    return cache[command.id]


def actual_values(enforcement: Enforcement, parsed: ParsedCommand) -> list[str | None] | None:
    """What a parsed command sets for the enforced flag or variable, or None when it does not set it."""
    if enforcement.env is not None:
        return [parsed.env[enforcement.env]] if enforcement.env in parsed.env else None
    return parsed.values(enforcement.flag or "")


def carries(enforcement: Enforcement, command: Command) -> bool:
    """True when `command` sets the enforced flag or variable, to the enforced value when one is given.

    When a flag is given several times, the last value is the one that takes effect.
    """
    found = actual_values(enforcement, parse_command(command.text, command.form, command.env))
    if not found:
        return False
    return enforcement.value is None or found[-1] == enforcement.value


def _settings(e: Enforcement, values: list[str | None]) -> str:
    """What a command actually sets, written the way the enforcement is."""
    shown = [Enforcement(command=e.command, flag=e.flag, env=e.env, value=v) for v in values]
    return " and ".join(s.setting() for s in shown)


def _enforcement_findings(state: SessionState, cache: dict[str, ParsedCommand]) -> list[Finding]:
    return [f for d in state.of_kind(Decision) if d.status == "accepted" for f in _decision_enforcements(state, d, cache)]


def _decision_enforcements(state: SessionState, d: Decision, cache: dict[str, ParsedCommand]) -> list[Finding]:
    out = []
    for e in d.enforces:
        cmd = state.get(e.command)
        if not isinstance(cmd, Command):
            continue  # reported as a dangling link (or a link to a record of another kind below)
        where = f"decision/{d.id}"
        if cmd.status != "current":
            out.append(
                Finding(
                    "enforcement-not-current",
                    where,
                    f"enforces {e.setting()} on command {cmd.id}, which is {cmd.status}, not current",
                )
            )
        found = actual_values(e, _parsed(cmd, cache))
        what = f"flag {e.flag}" if e.flag else f"env {e.env}"
        if not found:
            out.append(
                Finding(
                    "enforcement-missing",
                    where,
                    f"enforces {e.setting()} on command {cmd.id}, but the command does not set {what}",
                )
            )
        elif e.value is not None and found[-1] != e.value:
            out.append(
                Finding(
                    "enforcement-contradicted",
                    where,
                    f"enforces {e.setting()} on command {cmd.id}, but the command has {_settings(e, found)}",
                )
            )
    return out


def _dangling(state: SessionState) -> list[Finding]:
    out = []
    for rec, rel, target in state.dangling():
        if isinstance(rec, Benchmark) and rel == "produced_by":
            continue  # its own finding below says more
        out.append(Finding("dangling-link", f"{rec.kind}/{rec.id}", f"link {rel} -> {target}: no such record"))
    for d in state.of_kind(Decision):
        for e in d.enforces:
            named = state.get(e.command)
            if named is not None and not isinstance(named, Command):
                out.append(
                    Finding("dangling-link", f"decision/{d.id}", f"enforces names {e.command}, which is {a(named.kind)}, not a command")
                )
    return out


_PROSE_FLAG = re.compile(r"(?<![\w-])(--[A-Za-z0-9][\w.-]*)(?:=|\s+)([A-Za-z0-9_.:/+-]*[A-Za-z0-9_])")
_PROSE_ENV = re.compile(r"(?<![\w-])([A-Z][A-Z0-9_]*)=([^\s,;'\"`)]+)")


def instruction_settings(text: str) -> dict[str, str]:
    """Flags and environment values an instruction's words ask for: `--kv-cache-dtype fp8_e4m3`,
    `--tp-size=8`, `NCCL_P2P_LEVEL=SYS`. A flag followed by another flag asks for nothing."""
    out: dict[str, str] = {}
    for m in _PROSE_FLAG.finditer(text):
        if not m.group(2).startswith("-"):
            out[m.group(1)] = m.group(2)
    for m in _PROSE_ENV.finditer(text):
        out[m.group(1)] = m.group(2)
    return out


def _instruction_findings(state: SessionState) -> list[Finding]:
    out = []
    standing = [i for i in state.of_kind(Instruction) if i.status == "active" and i.standing]
    accepted = [d for d in state.of_kind(Decision) if d.status == "accepted"]
    for ins in standing:
        asked = instruction_settings(ins.quote)
        for d in accepted:
            if ins.id in d.links.supersedes:
                out.append(
                    Finding(
                        "instruction-contradicted",
                        f"instruction/{ins.id}",
                        f"accepted decision {d.id} supersedes this standing instruction, but it is still active"
                        " (set it to superseded, or drop the link)",
                    )
                )
                continue
            for e in d.enforces:
                key = e.flag or e.env or ""
                if key in asked and e.value is not None and asked[key] != e.value:
                    out.append(
                        Finding(
                            "instruction-contradicted",
                            f"instruction/{ins.id}",
                            f"the user asked for {key} {asked[key]} ({ins.source or ins.id}) but accepted decision {d.id} enforces {key} {e.value}",
                        )
                    )
                    break
    return out


_Setting = tuple[str | None, str | None, str | None, str]


def _justified(state: SessionState) -> set[_Setting]:
    """(flag, env, value, command) of every enforcement of an accepted decision."""
    return {(e.flag, e.env, e.value, e.command) for d in state.of_kind(Decision) if d.status == "accepted" for e in d.enforces}


def _superseded_findings(state: SessionState, cache: dict[str, ParsedCommand]) -> list[Finding]:
    superseded = [d for d in state.of_kind(Decision) if d.status == "superseded"]
    if not superseded:
        return []
    current = [c for c in state.of_kind(Command) if c.status == "current"]
    justified = _justified(state)
    return [f for d in superseded for f in _decision_superseded(d, current, justified, cache)]


def _decision_superseded(d: Decision, current: list[Command], justified: set[_Setting], cache: dict[str, ParsedCommand]) -> list[Finding]:
    out = []
    for e in d.enforces:
        if e.value is None:
            continue  # a bare flag says too little to tell which decision put it there
        for cmd in current:
            found = actual_values(e, _parsed(cmd, cache))
            if not found or found[-1] != e.value:
                continue
            # The value is still justified when an accepted decision enforces it too.
            if (e.flag, e.env, e.value, cmd.id) in justified:
                continue
            out.append(
                Finding(
                    "superseded-still-enforced",
                    f"decision/{d.id}",
                    f"superseded, but current command {cmd.id} still sets {e.setting()}",
                )
            )
    return out


def _benchmark_findings(state: SessionState) -> list[Finding]:
    out = []
    for b in state.of_kind(Benchmark):
        for target in b.links.produced_by:
            rec = state.get(target)
            if rec is None:
                out.append(Finding("benchmark-command-missing", f"benchmark/{b.id}", f"produced_by command {target} no longer exists"))
            elif not isinstance(rec, Command):
                out.append(
                    Finding("benchmark-command-missing", f"benchmark/{b.id}", f"produced_by names {target}, {a(rec.kind)}, not a command")
                )
    return out


def decision_findings(state: SessionState, decision: Decision) -> list[Finding]:
    """The findings `check` reports at `decision/<id>` about its enforcements (codes
    `enforcement-*` and `superseded-*`), without checking the rest of the state."""
    cache: dict[str, ParsedCommand] = {}
    found: list[Finding] = []
    if decision.status == "accepted":
        found = _decision_enforcements(state, decision, cache)
    elif decision.status == "superseded":
        current = [c for c in state.of_kind(Command) if c.status == "current"]
        found = _decision_superseded(decision, current, _justified(state), cache)
    return ordered(found)


def ordered(found: list[Finding]) -> list[Finding]:
    """Findings without repeats, grouped by code in `CODES` order, then by record."""
    order = {c: i for i, c in enumerate(CODES)}
    unique = list(dict.fromkeys(found))
    return sorted(unique, key=lambda f: (order.get(f.code, len(order)), f.where))


def check(state: SessionState) -> list[Finding]:
    """Every finding for the state, grouped by code (in `CODES` order), then by record."""
    cache: dict[str, ParsedCommand] = {}
    found = (
        _enforcement_findings(state, cache)
        + _dangling(state)
        + _instruction_findings(state)
        + _superseded_findings(state, cache)
        + _benchmark_findings(state)
    )
    return ordered(found)


def check_json(session: str, findings: list[Finding], strict: bool = False) -> dict[str, Any]:
    """The findings as JSON-ready data, the one shape of `statedump check --json` and of the
    MCP `check` tool: `ok` is true when none of them fails (`failing`); each finding says
    whether it is `advisory`."""
    return {
        "session": session,
        "ok": not failing(findings, strict),
        "findings": [{"code": f.code, "where": f.where, "message": f.message, "advisory": f.code in ADVISORY} for f in findings],
    }
