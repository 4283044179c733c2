"""Capture: the transcript imported and a dump tagged at the moments the agent's hooks report.

An import of a long transcript can take longer than an agent waits for a hook (Claude Code
gives SessionEnd 1.5 s), so the hook only appends a job to `.git/statedump/capture-queue.jsonl`
and starts a detached worker (`statedump hook worker`); the worker takes the capture lock and
runs the jobs in the order they came, so the PostCompact summary always finds the dump its
PreCompact made. A worker that finds the lock taken leaves the jobs to the one holding it, which
looks at the queue again after letting the lock go: no job is stranded.

Per job:
- PreCompact, SessionEnd, Stop: import the transcript at `transcript_path` (importing the same
  lines again adds nothing; consecutive imports of one transcript are done once);
- PreCompact: then tag the session's next dump, `Before compaction (...)`;
- PostCompact: the agent's `compact_summary` becomes the checkpoint of that dump in
  `session.yaml` (its source is the transcript line Claude Code wrote the summary to when it can
  be found, so a later import of the transcript does not tag the same compaction again; the
  dump's name when the transcript's last summary line is an earlier compaction's, until an
  import reads this compaction's line: the checkpoint then takes that line's source);
- after the jobs: the `resume --agents-md` blocks in the project's CLAUDE.md / AGENTS.md are
  refreshed, and the guard's rules rebuilt.
Any failure is one line in the hook log; the next job still runs.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import json
import os
import re
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from statedump.services.agents.hooklog import log_failure
from statedump.services.agents.locate import state_dir

QUEUE = "capture-queue.jsonl"
LOCK = "capture.lock"
DUMPS = "capture-dumps.json"
"""Which dump each agent session's last PreCompact tagged, for its PostCompact."""
FORMATS = {"claude-code": "claude-code", "codex": "codex", "opencode": "opencode"}
"""Agent -> the import format of its transcript."""
AGENTS_MD = ("CLAUDE.md", ".claude/CLAUDE.md", "AGENTS.md")
"""Files whose `resume --agents-md` block the capture refreshes, in the project and the store."""


@contextlib.contextmanager
def _locked(path: Path, blocking: bool = True) -> Iterator[bool]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def enqueue(root: Path, job: dict[str, Any]) -> None:
    """Append a job to the queue (one JSON line, written under the queue's lock)."""
    folder = state_dir(root)
    job = {**job, "queued": datetime.now(UTC).isoformat()}
    with _locked(folder / f"{QUEUE}.lock"), open(folder / QUEUE, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(job, ensure_ascii=False) + "\n")


def pending(root: Path) -> int:
    """Jobs waiting in the queue."""
    try:
        with open(state_dir(root) / QUEUE, encoding="utf-8") as fh:
            return sum(1 for line in fh if line.strip())
    except OSError:
        return 0


def busy(root: Path) -> bool:
    """True while a worker holds the capture lock."""
    with _locked(state_dir(root) / LOCK, blocking=False) as got:
        return not got


def start_worker(root: Path) -> None:
    """Start a detached `statedump hook worker` for the store, in a session of its own so that it
    outlives the hook (and the agent's timeout for it). Not through `subprocess`: below the faces
    child processes are git's, started by `core.git`; this one is statedump itself."""
    devnull = os.devnull
    os.posix_spawn(
        sys.executable,
        [sys.executable, "-m", "statedump", "hook", "worker", "--store", str(root)],
        dict(os.environ),
        file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, devnull, os.O_WRONLY, 0),
        ],
        setsid=True,
    )


def _take(root: Path) -> list[dict[str, Any]]:
    folder = state_dir(root)
    with _locked(folder / f"{QUEUE}.lock"):
        path = folder / QUEUE
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        path.write_text("", encoding="utf-8")
    jobs = []
    for line in lines:
        with contextlib.suppress(ValueError):
            job = json.loads(line)
            if isinstance(job, dict):
                jobs.append(job)
    return jobs


def drain(root: Path) -> int:
    """Run every queued job (the worker's loop); returns how many ran."""
    done = 0
    while True:
        with _locked(state_dir(root) / LOCK, blocking=False) as got:
            if not got:
                return done
            jobs = _take(root)
            if jobs:
                run_jobs(root, jobs)
                done += len(jobs)
        if not pending(root):
            return done


def _merged(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive plain imports of one transcript (Stop after Stop) done once."""
    out: list[dict[str, Any]] = []
    for job in jobs:
        prev = out[-1] if out else None
        plain = job.get("event") in ("Stop", "SessionEnd")
        if prev is not None and plain and prev.get("event") in ("Stop", "SessionEnd") and prev.get("transcript") == job.get("transcript"):
            out[-1] = job
            continue
        out.append(job)
    return out


def run_jobs(root: Path, jobs: list[dict[str, Any]]) -> None:
    """Run jobs in order; each failure is logged and the next job still runs."""
    from statedump.core.store.store import Store

    store = Store(root)
    folder = state_dir(root)
    head = store.git.head()
    projects: set[str] = set()
    sessions: set[str | None] = set()
    for job in _merged(jobs):
        agent, event = str(job.get("agent", "?")), str(job.get("event", "?"))
        try:
            if job.get("cwd"):
                projects.add(str(job["cwd"]))
            sessions.add(job.get("session"))
            if event == "PostCompact":
                keep_summary(store, job)
            else:
                capture(store, job)
        except Exception as err:
            log_failure(folder, agent, event, f"{type(err).__name__}: {err}")
    if store.git.head() == head:
        return  # nothing was written: the blocks and the guard's rules are as current as before
    for sid in sessions:
        try:
            refresh_agents_md(store, [Path(p) for p in sorted(projects)], sid)
            from statedump.services.agents.guardfile import refresh

            refresh(root, sid)
        except Exception as err:
            log_failure(folder, "capture", "refresh", f"{type(err).__name__}: {err}")


def _import(store: Any, job: dict[str, Any]) -> None:
    from statedump.core.errors import StatedumpError
    from statedump.services.ingest import read_plan
    from statedump.services.ingest.apply import apply_plan

    path = Path(str(job["transcript"])).expanduser()
    if not path.exists():
        raise StatedumpError("the transcript is not there", where=path)
    fmt = FORMATS.get(str(job.get("agent")), "claude-code")
    try:
        # The transcript issue's incremental import: only the lines added since the last import
        # are read. Looked up by name, so that a tree without it still captures (whole reads).
        incremental: Any = importlib.import_module("statedump.services.ingest.incremental")
    except ImportError:
        apply_plan(store, read_plan(fmt, path), job.get("session"))
        return
    incremental.import_incremental(store, path, fmt=fmt, session=job.get("session"))


def capture(store: Any, job: dict[str, Any]) -> None:
    """Import the job's transcript; at PreCompact, then tag a dump."""
    if job.get("transcript"):
        _import(store, job)
        _claim_summary_line(store, job)
    if job.get("event") != "PreCompact":
        return
    from statedump.services.refs import tag_dump

    sid = store.pick_session(job.get("session"))
    agent_session = str(job.get("agent_session") or "")
    trigger = job.get("trigger") or "compaction"
    short = f" session {agent_session[:8]}" if agent_session else ""
    made = tag_dump(store, sid, f"Before compaction ({job.get('agent')}{short}, {trigger})")
    _remember(store.root, agent_session, sid, made.name)


def _remember(root: Path, agent_session: str, sid: str, name: str) -> None:
    path = state_dir(root) / DUMPS
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    known[agent_session or "-"] = {"session": sid, "dump": name}
    path.write_text(json.dumps(known, ensure_ascii=False, indent=1), encoding="utf-8")


def _last_summary_line(transcript: str | None) -> tuple[str, str] | None:
    """The uuid and text of the last compaction summary line in the transcript (Claude Code writes
    the summary as a user line with `isCompactSummary`), looked for in the file's last megabytes."""
    if not transcript:
        return None
    try:
        with open(Path(transcript).expanduser(), "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 8 * 1024 * 1024))
            tail = fh.read().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(tail):
        if '"isCompactSummary"' not in line:
            continue
        with contextlib.suppress(ValueError, AttributeError):
            data = json.loads(line)
            if data.get("isCompactSummary") and isinstance(data.get("uuid"), str):
                content = data.get("message", {}).get("content")
                parts = content if isinstance(content, list) else [{"text": content}]
                return str(data["uuid"]), " ".join(str(p.get("text") or "") for p in parts if isinstance(p, dict))
    return None


def _words(text: str) -> str:
    return " ".join(text.split())


def keep_summary(store: Any, job: dict[str, Any]) -> None:
    """PostCompact: the agent's own summary becomes the checkpoint of the dump PreCompact tagged.

    Its source is the transcript's summary line when that line is this compaction's (it holds the
    summary's words, or is no checkpoint yet): a later import of the transcript then does not
    tag the compaction again. When the last summary line is an earlier compaction's (a second
    compaction whose line is not written yet), the source is the dump, never that older line."""
    from statedump.models import Checkpoint
    from statedump.services.refs import list_dumps

    summary = str(job.get("summary") or "").strip()
    if not summary:
        return
    try:
        known = json.loads((state_dir(store.root) / DUMPS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    entry = known.get(str(job.get("agent_session") or "-")) or {}
    sid = entry.get("session") or store.pick_session(job.get("session"))
    dumps = {d.name: d for d in list_dumps(store, sid)}
    dump = dumps.get(entry.get("dump", "")) or (list(dumps.values())[-1] if dumps else None)
    label = FORMATS.get(str(job.get("agent")), "claude-code")
    session = store.load_session(sid)
    sources = [c.source for c in session.checkpoints]
    line = _last_summary_line(job.get("transcript"))
    if line is not None and (_words(summary)[:200] in _words(line[1]) or f"{label} {line[0]}" not in sources):
        source = f"{label} {line[0]}"
    else:
        source = f"{label} compaction {dump.name}" if dump else f"{label} compaction"
    at = dump.date if dump else datetime.now(UTC)
    point = Checkpoint(at=at, source=source, message=summary)
    if source in sources:
        # Its line imported already (as "compaction summary"): the agent's own words replace that.
        here = sources.index(source)
        if session.checkpoints[here].message == summary:
            return
        points = [
            *session.checkpoints[:here],
            point.model_copy(update={"at": session.checkpoints[here].at}),
            *session.checkpoints[here + 1 :],
        ]
    else:
        points = [*session.checkpoints, point]
    store.update_session(session.model_copy(update={"checkpoints": points}), source=source)


def _claim_summary_line(store: Any, job: dict[str, Any]) -> None:
    """A summary kept under its dump's name (its transcript line came after PostCompact) takes the
    line's source once an import has read that line: one checkpoint for the compaction, in the
    agent's own words, not a second one the import made of the same line."""
    label = FORMATS.get(str(job.get("agent")), "claude-code")
    sid = store.pick_session(job.get("session"))
    session = store.load_session(sid)
    waiting = [i for i, c in enumerate(session.checkpoints) if c.source.startswith(f"{label} compaction ")]
    if not waiting:
        return
    line = _last_summary_line(job.get("transcript"))
    if line is None:
        return
    source = f"{label} {line[0]}"
    sources = [c.source for c in session.checkpoints]
    mine = next((i for i in reversed(waiting) if _words(session.checkpoints[i].message)[:200] in _words(line[1])), None)
    if mine is None:
        return
    points = list(session.checkpoints)
    points[mine] = points[mine].model_copy(update={"source": source})
    if source in sources:
        del points[sources.index(source)]
    store.update_session(session.model_copy(update={"checkpoints": points}), source=source)


_BUDGET = re.compile(r"(?:Left out to fit|Over) ([\d,]+) tokens")


def refresh_agents_md(store: Any, projects: list[Path], session: str | None) -> list[Path]:
    """Rewrite every `resume --agents-md` block found in the projects' and the store's CLAUDE.md /
    AGENTS.md with the current resume prompt (the budget it was written with, read back from its
    footer; Claude's layout in CLAUDE.md). Returns the files changed."""
    from statedump.services.report.resume import BLOCK_START, resume_prompt, write_agents_md

    changed = []
    state = None
    for folder in dict.fromkeys([*projects, store.root]):
        for name in AGENTS_MD:
            path = folder / name
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if BLOCK_START not in text:
                continue
            if state is None:
                state = store.load(store.pick_session(session))
            found = _BUDGET.search(text.split(BLOCK_START, 1)[1])
            budget = int(found.group(1).replace(",", "")) if found else None
            flavor = "claude" if name.endswith("CLAUDE.md") else "plain"
            if write_agents_md(path, resume_prompt(state, flavor=flavor, budget=budget).text):
                changed.append(path)
    return changed
