"""The presentation of `statedump drift`: one block per live configuration, then a verdict.

Each line is plain text; the CLI shows it through `markup.visible()`. `drift_json` is the
`--json` shape (encoded by `core.render.json`)."""

from __future__ import annotations

from typing import Any

from statedump.core.render.json import plain
from statedump.models.drift import DriftReport, LiveDrift, SettingCheck


def _setting_line(s: SettingCheck) -> list[str]:
    on = ", ".join(s.commands)
    if s.holds == "present":
        head = f"  present       {s.decision}: {s.setting} (on {on})"
    elif s.holds == "unknown":
        head = f"  unknown       {s.decision}: {s.setting} (on {on}): this source does not show it"
    elif s.holds == "absent":
        head = f"  ABSENT        {s.decision}: {s.setting} (on {on}): the live configuration does not set it"
    else:
        head = f"  CONTRADICTED  {s.decision}: decided {s.setting} (on {on}), live {s.live}"
    out = [head]
    if s.holds in ("absent", "contradicted"):
        out += [f"                  prompted by {p}" for p in s.prompted_by]
    return out


def _block(d: LiveDrift) -> list[str]:
    live = d.live
    server = f" ({live.server})" if live.server else ""
    out = [f"{live.source}{server}"]
    if d.unmatched:
        out.append("  UNRECORDED    no current command record runs this server: record how it is meant to run")
        return out
    out.append(f"  compared with command {', '.join(c.command for c in d.commands)}")
    for s in d.settings:
        out += _setting_line(s)
    for c in d.commands:
        for diff in c.diffs:
            if diff.change == "added":
                out.append(f"  ADDED         command {c.command}: live has {diff.live}, the record does not")
            elif diff.change == "removed":
                out.append(f"  REMOVED       command {c.command}: the record has {diff.recorded}, live does not")
            else:
                out.append(f"  CHANGED       command {c.command}: recorded {diff.recorded}, live {diff.live}")
    if not live.env_known:
        out.append("  (environment not readable from this source: environment settings are unknown)")
    return out


def drift_lines(report: DriftReport) -> list[str]:
    """The report as lines of text, ending with the verdict."""
    out: list[str] = []
    for d in report.lives:
        out += [*_block(d), ""]
    bad = sum(1 for d in report.lives for s in d.settings if s.holds in ("absent", "contradicted"))
    diffs = sum(len(c.diffs) for d in report.lives for c in d.commands)
    unrecorded = sum(1 for d in report.lives if d.unmatched)
    if report.recorded:
        out.append(f"recorded: {', '.join(f'command/{r}' for r in report.recorded)}")
    if report.holds:
        out.append(f"ok: every decided setting holds in {len(report.lives)} live configuration{'s' if len(report.lives) != 1 else ''}")
    else:
        parts = [f"{bad} decided setting{'s' if bad != 1 else ''} not in place"] if bad else []
        parts += [f"{diffs} difference{'s' if diffs != 1 else ''} from the command records"] if diffs else []
        parts += [f"{unrecorded} unrecorded server{'s' if unrecorded != 1 else ''}"] if unrecorded else []
        out.append(f"drift: {', '.join(parts)} in session {report.session}")
    return out


def drift_json(report: DriftReport) -> dict[str, Any]:
    """`{session, ok, recorded, live: [{source, origin, server, ok, unmatched, settings, commands}]}`."""
    return {
        "session": report.session,
        "ok": report.holds,
        "recorded": report.recorded,
        "live": [
            {
                "source": d.live.source,
                "origin": d.live.origin,
                "server": d.live.server,
                "ok": d.holds,
                "unmatched": d.unmatched,
                "env_known": d.live.env_known,
                "settings": plain(d.settings),
                "commands": plain(d.commands),
            }
            for d in report.lives
        ],
    }
