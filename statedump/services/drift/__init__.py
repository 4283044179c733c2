"""`statedump drift`: the recorded decisions and commands against what really runs.

`read_sources` turns the user's `--unit`, `--pid`, `--process auto`, `--url`, `--compose` and
`--inspect` into `Live` configurations (`sources.py`, `http.py`); `drift` compares each with
the session (`compare.py`) and, with `record=True`, stores what it saw (`record.py`).
The rules are documented in docs/drift.md.
"""

from __future__ import annotations

from pathlib import Path

from statedump.core.errors import BadInput
from statedump.core.store.store import Store
from statedump.models.drift import DriftReport, Live
from statedump.services.drift.compare import compare


def read_sources(
    units: tuple[str, ...] = (),
    pids: tuple[int, ...] = (),
    auto: bool = False,
    urls: tuple[str, ...] = (),
    composes: tuple[Path, ...] = (),
    inspects: tuple[Path, ...] = (),
) -> list[Live]:
    """Every live configuration asked for, in the order of the options; BadInput naming the
    first source that cannot be read."""
    from statedump.services.drift import http, sources

    lives = [sources.read_unit(u) for u in units]
    chosen = list(pids)
    if auto:
        found = sources.server_pids()
        if not found:
            raise BadInput("no SGLang, vLLM or TensorRT-LLM server process is running", where="--process auto")
        chosen += [p for p in found if p not in chosen]
    lives += [sources.read_pid(p) for p in chosen]
    lives += [http.read_url(u) for u in urls]
    for path in composes:
        lives += sources.read_compose(path)
    for path in inspects:
        lives += sources.read_inspect(path)
    if not lives:
        raise BadInput(
            "nothing to compare",
            where="drift",
            hint="give --unit, --pid, --process auto, --url, --compose or --inspect",
        )
    return lives


def drift(store: Store, session: str, lives: list[Live], record: bool = False) -> DriftReport:
    """Each live configuration compared with the session's working tree; with `record`, what
    was seen is stored in one commit first (docs/drift.md)."""
    state = store.load(session)
    report = DriftReport(session, [compare(state, live) for live in lives])
    if record:
        from statedump.services.drift.record import record_observed

        report.recorded = record_observed(store, session, state, report)
    return report
