"""Importing a transcript again reads only what was written since the last import.

An agent's transcript only grows while the session runs, and the agent hooks import it at
every compaction: reading hundreds of megabytes each time would make every compaction wait.
So each import of a Claude Code or Codex transcript leaves, under `.git/statedump/imports/`,
one state file per (format, transcript, session): how far the file was read (the end of its
last complete line), a digest of the 64 KB before that point, and where the lines the reader
parsed on the way start (the few a Claude Code reader does not pass over unparsed), each with
its length and digest — never their text, which is the user's and may hold a pasted key.

The next import compares: the same size and the same tail is an unchanged file (one stat and
one hash of 64 KB, no parse); a shorter file or another tail is a rewritten one, read whole;
otherwise the kept lines are read back from the transcript, checked against their digests,
handed to the reader again, and the file is read on from where
the last import stopped (see `jsonl.Resume`). The reader thus builds the same plan a whole read
would, so every record that depends on what came before (the server running when a benchmark
ran, a tool call whose result comes after the offset, the prompts a rewind abandons, the
messages a later summary quotes) comes out as a whole read makes it, and no reader keeps state
of its own. What the session already holds with the same content is left alone, as always.

The state file is written (atomically) only after the import's commit: a kill in between
leaves the previous state, and the next import reads that part again and adds nothing twice.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from statedump.core.store.files import write_atomic
from statedump.services.ingest.jsonl import Progress, Resume, check_file, resuming
from statedump.services.ingest.report import ImportReport, ReadSpan
from statedump.services.ingest.zst import is_zstd

if TYPE_CHECKING:
    # Types only: an unchanged transcript is told from the state file alone, before the
    # models, the plan and the store's writer are imported (the hooks run this at every compaction).
    from statedump.core.store.store import Store
    from statedump.models import RecordBase

STREAMED = ("claude-code", "codex")
"""Formats read as JSON lines that only grow: these resume. Others are read whole each time."""

TAIL = 64 * 1024
"""Bytes before the offset whose digest tells a grown file from a rewritten one."""

_VERSION = 3  # 3: kept lines named by place and digest, not by their text

_WHOLE = 8 << 20
"""Above this many bytes read, an import that parsed more than half of them keeps none to replay."""


@dataclass(frozen=True)
class _State:
    """What the last import of a transcript read (the header of its state file)."""

    path: str
    session: str
    size: int
    offset: int
    lines: int
    tail: str
    kept: int | None
    """Number of kept lines that follow the header, or None when there were too many to keep."""
    records: dict[str, str]
    """Record id -> digest of the record as that import's plan gave it."""
    others: dict[str, tuple[int, int]]
    """Other files the reader read (path -> size, mtime in ns): a subagent's transcript."""


def state_dir(store: Store) -> Path:
    """Where the import states of a store are: inside `.git`, so never committed or synced."""
    return store.git.git_dir / "statedump" / "imports"


def state_path(store: Store, fmt: str, path: Path, session: str | None) -> Path:
    """The state file of one transcript imported as `fmt` into `session` (None: the session the
    import chooses, which the file then names)."""
    key = hashlib.sha256(f"{fmt}\x00{path.resolve()}\x00{session or ''}".encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return state_dir(store) / f"{key}.state"


def tail_digest(path: Path, end: int) -> str:
    """sha256 of the `TAIL` bytes of `path` before `end` (fewer at the start of the file)."""
    start = max(0, end - TAIL)
    with open(path, "rb") as fh:
        fh.seek(start)
        data = fh.read(end - start)
    return hashlib.sha256(data).hexdigest() if len(data) == end - start else ""


def import_incremental(
    store: Store,
    path: Path,
    *,
    fmt: str = "claude-code",
    session: str | None = None,
    full: bool = False,
    dry_run: bool = False,
    strict: bool = False,
    session_title: str | None = None,
    progress: Progress | None = None,
) -> ImportReport:
    """Import `path` as `fmt` into `session`, reading only what the file gained since it was last
    imported there (`full`: read it whole all the same). An unchanged file is not parsed:
    the report's `read.mode` is "unchanged" and nothing is written.

    This is what the agent hooks call at each compaction and at the end of a session. Formats
    other than `STREAMED` (and zstd-compressed rollouts, which Codex writes once) are read
    whole whenever they changed. `dry_run` writes nothing, the state neither.
    """
    from statedump.services.ingest import read_plan

    if fmt not in STREAMED or path.is_dir():
        from statedump.services.ingest.apply import apply_plan

        plan = read_plan(fmt, path, progress, every_line=strict)
        report = apply_plan(store, plan, session, dry_run=dry_run, strict=strict, session_title=session_title)
        report.read = ReadSpan("full", 0, _size(path), _size(path))
        return report
    # A zstd rollout is binary: its reader checks it; here only its size and tail count.
    packed = is_zstd(path)
    size = path.stat().st_size if packed else check_file(path, f"{fmt} transcript")
    where = state_path(store, fmt, path, session)
    # --strict parses every line, so what it keeps is not what a reader that passes lines over replays.
    state = None if full or strict else _load(where)
    reason = "asked to read whole" if full or strict else "no earlier import"
    resume = Resume(path.resolve())
    checked: dict[int, bytes] = {}
    """Line number -> the digest a kept line was found to have when it was read back (not hashed again)."""
    if state is not None:
        mode, reason = _compare(path, size, state)
        if mode == "unchanged":
            report = ImportReport(fmt, path.name, state.session, dry_run=dry_run)
            report.read = ReadSpan("unchanged", state.offset, state.offset, size, reason)
            return report
        if mode == "grown":
            replay = _replay(where, state, path)
            if replay is None:
                reason = "grown, but the last import kept too much to replay: read whole"
            else:
                resume = Resume(path.resolve(), state.offset, state.lines, replay[0], positions=replay[1])
                checked = replay[2]
    with resuming(resume):
        plan = read_plan(fmt, path, progress, every_line=strict)
    # Only now: a big transcript's lines are being scanned by a child while the modules load
    # (see linescan.py), which is a tenth of a second of the reading.
    from statedump.services.ingest.apply import apply_plan, source_label

    read = ReadSpan("incremental" if resume.offset else "full", resume.offset, resume.end, size, reason)
    # What was read, for the commit's trailer: the bytes, and the digest of the tail the next
    # import compares (the whole file is not hashed: that alone cost half a json.loads loop).
    tail = tail_digest(path, resume.end if resume.used else size)
    label = f"{path.name} bytes {resume.offset}-{resume.end} tail-sha256:{tail[:16]}"
    if not resume.used:  # a reader that did not read this file line by line (a zstd rollout)
        label = source_label(path)
    target = session if session is not None else (state.session if state is not None else None)
    digests = {r.id: _digest(r) for r in plan.records}
    # A resumed read gives every record again: those the last import's plan gave the same were
    # written then, and are not compared again (most of a long session's records).
    only = None if not resume.offset or state is None else {k for k, v in digests.items() if state.records.get(k) != v}
    report = apply_plan(store, plan, target, dry_run=dry_run, strict=strict, session_title=session_title, source=label, only=only)
    report.read = read
    if not dry_run:
        # Only now that the records are committed: a state ahead of the store would lose them.
        if resume.used:
            kept = resume.kept
            if kept is not None and resume.end > _WHOLE and sum(len(raw) for _, raw in kept) > resume.end // 2:
                # A reader that parses most of a big file (Codex's) would replay most of it: a
                # whole read costs the same, without a second copy of the file under .git.
                kept = None
            _save(
                where,
                path,
                report.session,
                size,
                resume.end,
                resume.end_lines,
                tail,
                kept,
                digests,
                resume.others,
                resume.positions,
                checked,
            )
        else:  # read whole each time it changes; the state only tells it unchanged
            # (What it read instead, the decompressed copy, is gone: it is no file to follow.)
            _save(where, path, report.session, size, size, 0, tail, None, digests, {})
    return report


def _digest(record: RecordBase) -> str:
    return hashlib.blake2b(record.model_dump_json().encode(), digest_size=12).hexdigest()


def _size(path: Path) -> int:
    with contextlib.suppress(OSError):
        return path.stat().st_size if path.is_file() else 0
    return 0


def _compare(path: Path, size: int, state: _State) -> tuple[str, str]:
    """Whether the file is "unchanged", "grown" or "rewritten" since `state`, and why."""
    if size < state.offset:
        return "rewritten", f"shorter than the {state.offset} bytes read before: read whole"
    if tail_digest(path, state.offset) != state.tail:
        return "rewritten", "the part read before has changed: read whole"
    if size == state.size:
        if all(_stat(other) == seen for other, seen in state.others.items()):
            return "unchanged", "unchanged since the last import"
        return "grown", "a file it follows (a subagent's transcript) changed since the last import"
    return "grown", f"grown by {size - state.size} bytes since the last import"


def _stat(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)


def _load(where: Path) -> _State | None:
    """The state header, or None when there is none or it cannot be read (then the file is read whole)."""
    try:
        with open(where, "rb") as fh:
            head = json.loads(fh.readline())
        if head.get("version") != _VERSION:
            return None
        return _State(
            str(head["path"]),
            str(head["session"]),
            int(head["size"]),
            int(head["offset"]),
            int(head["lines"]),
            str(head["tail"]),
            head["kept"],
            dict(head.get("records") or {}),
            {str(k): (int(v[0]), int(v[1])) for k, v in (head.get("others") or {}).items()},
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _line_digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=8).hexdigest()


def _replay(where: Path, state: _State, transcript: Path) -> tuple[list[tuple[int, bytes]], dict[int, int], dict[int, bytes]] | None:
    """The kept lines (read back from the transcript at the places the state names, each
    checked against its digest) and their places; None when they were not kept or any cannot
    be read back as it was (the file is then read whole); and the digests they were checked against."""
    if state.kept is None:
        return None
    try:
        with open(where, "rb") as fh:
            fh.readline()
            body = fh.read()
        out: list[tuple[int, bytes]] = []
        places: dict[int, int] = {}
        checked: dict[int, bytes] = {}
        with open(transcript, "rb") as source:
            for entry in body.splitlines():
                number, _, ref = entry.partition(b"\t")
                if not number.isdigit():
                    return None
                if ref.startswith(b"!"):  # a passed-over line's token (a few letters)
                    out.append((int(number), ref + b"\n"))
                    continue
                start, length, digest = ref.split(b":")
                source.seek(int(start))
                raw = source.read(int(length))
                if len(raw) != int(length) or _line_digest(raw) != digest.decode():
                    return None
                out.append((int(number), raw))
                places[int(number)] = int(start)
                checked[int(number)] = digest
    except (OSError, ValueError):
        return None
    return (out, places, checked) if len(out) == state.kept else None


def _save(
    where: Path,
    path: Path,
    session: str,
    size: int,
    offset: int,
    lines: int,
    tail: str,
    kept: list[tuple[int, bytes]] | None,
    records: dict[str, str],
    others: dict[str, tuple[int, int]],
    positions: dict[int, int] | None = None,
    checked: dict[int, bytes] | None = None,
) -> None:
    """The state after a committed import, written atomically. A failure is not the user's
    error: the state left behind (or none) only makes the next import read more again."""
    head: dict[str, Any] = {
        "version": _VERSION,
        "path": str(path.resolve()),
        "session": session,
        "size": size,
        "offset": offset,
        "lines": lines,
        "tail": tail,
        "kept": None if kept is None else len(kept),
        "records": records,
        "others": others,
    }
    # A kept line is named by where it starts, its length and a digest, never by its text: the
    # transcript holds what the user pasted (keys among it), and .git/statedump holds no secret.
    places = positions or {}
    known = checked or {}
    body = b"".join(
        b"%d\t%s" % (number, raw)
        if raw.startswith(b"!")
        else b"%d\t%d:%d:%s\n" % (number, places[number], len(raw), known.get(number) or _line_digest(raw).encode())
        for number, raw in kept or ()
        if raw.startswith(b"!") or number in places
    )
    # Not compressed: compressing and decompressing them took a tenth of a resumed import.
    data = json.dumps(head).encode() + b"\n" + body
    # Not synced: after a power cut a state file that did not survive whole is not read (its
    # header or its body does not parse, or the tail does not match), and the file is read whole.
    with contextlib.suppress(OSError):
        write_atomic(where, data, durable=False)
