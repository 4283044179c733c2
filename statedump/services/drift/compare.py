"""Comparing a live configuration with the records: each setting an accepted decision
enforces (present, absent, contradicted, or unknown when the source cannot tell), and each
flag or variable where a current command record and the live configuration differ.

Values are read the way `check` reads them (`services.check.actual_values` over a
`services.flags.ParsedCommand`), so `drift` and `check` never disagree about what a command sets.
"""

from __future__ import annotations

from statedump.models import Command, Decision, Enforcement
from statedump.models.drift import CommandDrift, FlagDiff, Live, LiveDrift, SettingCheck
from statedump.models.state import SessionState
from statedump.services.check import actual_values
from statedump.services.flags import ParsedCommand, parse_command
from statedump.services.ingest.launch import server_family

OBSERVED_TAG = "observed"
"""Tag of the command records `drift --record` writes: what was seen, not what was decided,
so they are never compared with what they were read from."""


def _server(command: Command) -> str | None:
    parsed = parse_command(command.text, command.form, command.env)
    return next((s for p in parsed.programs if (s := server_family(p))), None)


def matching_commands(state: SessionState, live: Live) -> list[Command]:
    """The current command records that run the same server as `live`; of those, the ones
    written the same way (a unit against systemd records, a command line against shell ones)
    when there are any, so one unit is not reported twice."""
    current = [c for c in state.of_kind(Command) if c.status == "current" and OBSERVED_TAG not in c.tags]
    same = [c for c in current if (s := _server(c)) is not None and (live.server is None or s == live.server)]
    form = "systemd" if live.form == "systemd" else "shell"
    alike = [c for c in same if c.form == form]
    return alike or same


def _shown(e: Enforcement, values: list[str | None]) -> str:
    return " and ".join(Enforcement(command=e.command, flag=e.flag, env=e.env, value=v).setting() for v in values)


def _prompts(state: SessionState, decision: Decision) -> list[str]:
    from statedump.services.why import build_report  # why imports check; import here keeps the chain one-way

    return [f"“{i.quote.strip()}” ({i.source or i.id})" for i in build_report(state, decision).prompted_by]


def _setting(live: Live, parsed: ParsedCommand, e: Enforcement) -> tuple[str, str | None]:
    if e.env is not None and not live.env_known:
        return "unknown", None
    found = actual_values(e, parsed)
    if not found:
        return ("unknown" if live.all_flags and e.flag else "absent"), None
    if e.value is not None and found[-1] != e.value:
        return "contradicted", _shown(e, found[-1:])
    return "present", _shown(e, found[-1:])


def _settings(state: SessionState, live: Live, commands: set[str]) -> list[SettingCheck]:
    parsed = ParsedCommand(live.flags, live.env)
    out: list[SettingCheck] = []
    for d in state.of_kind(Decision):
        if d.status != "accepted":
            continue
        seen: dict[str, SettingCheck] = {}
        for e in d.enforces:
            if e.command not in commands:
                continue  # enforced on something else than this server
            key = e.setting()
            if key in seen:
                seen[key].commands.append(e.command)
                continue
            holds, shown = _setting(live, parsed, e)
            seen[key] = SettingCheck(d.id, key, [e.command], holds, shown)  # type: ignore[arg-type]
        if seen:
            prompts = _prompts(state, d)
            for check in seen.values():
                check.prompted_by = prompts
        out += seen.values()
    return out


def _text(name: str, value: str | None, env: bool) -> str:
    if env:
        return f"{name}={value}"
    return f"{name} {value}" if value is not None else name


def command_diffs(command: Command, live: Live) -> list[FlagDiff]:
    """Flags and variables that differ between a command record and the live configuration."""
    rec = parse_command(command.text, command.form, command.env)
    out = []
    for name, values in rec.flags.items():
        there = live.flags.get(name)
        if there is None:
            if not live.all_flags:
                out.append(FlagDiff(name, "removed", _text(name, values[-1], False), None))
        elif there[-1] != values[-1]:
            out.append(FlagDiff(name, "changed", _text(name, values[-1], False), _text(name, there[-1], False)))
    if not live.all_flags:
        out += [FlagDiff(n, "added", None, _text(n, v[-1], False)) for n, v in live.flags.items() if n not in rec.flags]
    if live.env_known:
        for name, value in rec.env.items():
            if name not in live.env:
                out.append(FlagDiff(name, "removed", _text(name, value, True), None))
            elif live.env[name] != value:
                out.append(FlagDiff(name, "changed", _text(name, value, True), _text(name, live.env[name], True)))
        if not live.whole_environment:
            out += [FlagDiff(n, "added", None, _text(n, v, True)) for n, v in live.env.items() if n not in rec.env]
    return out


def compare(state: SessionState, live: Live) -> LiveDrift:
    """The decisions' settings and the matching command records, against one live configuration."""
    commands = matching_commands(state, live)
    if not commands:
        return LiveDrift(live, unmatched=True)
    ids = {c.id for c in commands}
    return LiveDrift(live, _settings(state, live, ids), [CommandDrift(c.id, command_diffs(c, live)) for c in commands])
