"""`drift --record`: what was seen, stored as command records in one commit.

Each live configuration becomes a `command` record with status `current`, form `systemd` for
a unit and `shell` otherwise, tagged `observed` (so `drift` never compares it with itself)
and linked (`relates_to`) to the command records it was compared with. Its id is stable per
source (`observed-unit-<name>`, `observed-<server>-<command>`), so recording again edits
the same file and `statedump log` shows when production changed; nothing is committed when
the configuration is what was last recorded.
"""

from __future__ import annotations

from pathlib import Path

from statedump.core import codec
from statedump.core.clock import fixed, now
from statedump.core.redact import redact_model
from statedump.core.store.store import Store, commit_message
from statedump.models import Command
from statedump.models.base import Links
from statedump.models.drift import DriftReport, LiveDrift
from statedump.models.ids import slugify
from statedump.models.state import SessionState
from statedump.services.drift.compare import OBSERVED_TAG


def _id(d: LiveDrift) -> str:
    live = d.live
    if live.origin == "unit":
        name = live.source.split()[-1].rsplit("/", 1)[-1].removesuffix(".service")
        return slugify(f"observed unit {name}", 64)
    near = d.commands[0].command if d.commands else live.origin
    return slugify(f"observed {live.server or live.origin} {near}", 64)


def _env(d: LiveDrift, state: SessionState) -> dict[str, str]:
    """For a process, only the variables the compared records or decisions name: a whole
    environment is noise, and may hold what no record should."""
    live = d.live
    if not live.whole_environment:
        return {} if live.form == "systemd" else dict(live.env)
    from statedump.services.flags import parse_command

    names = {s.setting.split("=", 1)[0] for s in d.settings if "=" in s.setting and not s.setting.startswith("-")}
    for c in d.commands:
        rec = state.get(c.command)
        if isinstance(rec, Command):
            names |= set(parse_command(rec.text, rec.form, rec.env).env)
    return {k: live.env[k] for k in sorted(names) if k in live.env}


def record_observed(store: Store, session: str, state: SessionState, report: DriftReport) -> list[str]:
    """Write one record per live configuration (in one commit); the ids written or unchanged."""
    files: dict[Path, bytes | None] = {}
    ids: list[str] = []
    first: Command | None = None
    for d in report.lives:
        rid = _id(d)
        n = 2
        while rid in ids:
            rid, n = f"{_id(d)[:60]}-{n}", n + 1
        ids.append(rid)
        live = d.live
        env = _env(d, state)
        old = state.get(rid)
        if isinstance(old, Command) and old.text == live.text and old.env == env and old.status == "current":
            continue  # production is as last recorded
        record = Command(
            id=rid,
            title=f"Observed by statedump drift: {live.source}"[:200],
            status="current",
            at=now(),
            source=f"statedump drift ({live.source})",
            form=live.form,
            text=live.text,
            env=env,
            purpose="What was running when drift looked, as read from the live source (not a decision).",
            tags=[OBSERVED_TAG, "drift"],
            links=Links(relates_to=[c.command for c in d.commands]),
            body="Holds: every decided setting is in place." if d.holds else "Differs from the records: see `statedump drift`.",
        )
        record = redact_model(record)
        first = first or record
        files[store.record_path(session, "command", rid)] = codec.dump_record(record).encode()
    if files and first is not None:
        subject = f"command: observe {', '.join(ids)}" if len(files) > 1 else None
        with store.lock():
            store.commit_files(files, commit_message("observe", first, session, first.source, subject), fixed())
    return ids
