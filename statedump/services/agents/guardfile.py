"""The guard's rules, precomputed into one small JSON file beside the caches.

Reading the records (YAML, pydantic) costs more than the guard's whole budget, so the rules are
worked out once (`build`, from a loaded session) and kept in `.git/statedump/guard.json` with a
fingerprint of the files they came from: name, size, modification time and inode of every file
in the kinds the rules read, and of every session's `session.yaml` (a new session can become the
default one). `load_fresh` recomputes the fingerprint with nothing but `os.scandir` and returns
the rules only when it matches; otherwise the caller rebuilds (`refresh`). A file changed in the
last two seconds is never trusted to have settled (file times are coarser than writes), so the
rules are then rebuilt without being saved, as the record cache does.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from statedump.services.agents.locate import SESSIONS, state_dir

if TYPE_CHECKING:
    from statedump.models.state import SessionState

VERSION = 1
KINDS = ("benchmark", "command", "compat", "decision", "discovery", "instruction")
"""The kind folders the rules are built from."""
RACY_NS = 2_000_000_000
WORDS_LIMIT = 300
"""The user's words quoted in a reason are cut to this many characters."""
SESSION_FILE = "session.yaml"


def guard_path(root: Path, session: str | None) -> Path:
    """`.git/statedump/guard.json` (the default session) or `guard-<session>.json`."""
    return state_dir(root) / ("guard.json" if session is None else f"guard-{session}.json")


def _code_stamp() -> str:
    # Rules written by other code are stale too: the modules that make and read them.
    here = Path(__file__).parent
    stamps = []
    for path in (Path(__file__), here / "guard.py", here.parent / "flags.py"):
        st = path.stat()
        stamps.append(f"{st.st_size}:{st.st_mtime_ns}")
    return ",".join(stamps)


def fingerprint(root: Path, session: str) -> tuple[str, bool]:
    """A digest of the files the rules of `session` come from, and whether they have all settled."""
    digest = hashlib.blake2b(f"{VERSION} {_code_stamp()}".encode(), digest_size=16)
    newest = 0
    base = root / SESSIONS
    entries: list[tuple[str, int, int, int]] = []
    with os.scandir(base) as sessions:
        for folder in sessions:
            with contextlib.suppress(OSError):
                st = os.stat(os.path.join(folder.path, SESSION_FILE))
                entries.append((folder.name, st.st_size, st.st_mtime_ns, st.st_ino))
                newest = max(newest, st.st_mtime_ns)
    for kind in KINDS:
        with contextlib.suppress(FileNotFoundError), os.scandir(base / session / kind) as files:
            for entry in files:
                st = entry.stat()
                entries.append((f"{kind}/{entry.name}", st.st_size, st.st_mtime_ns, st.st_ino))
                newest = max(newest, st.st_mtime_ns)
    entries.sort()
    digest.update(repr(entries).encode())
    return digest.hexdigest(), newest < time.time_ns() - RACY_NS


def load_fresh(root: Path, session: str | None) -> dict[str, Any] | None:
    """The saved rules when the files they came from are unchanged, else None."""
    try:
        rules: dict[str, Any] = json.loads(guard_path(root, session).read_bytes())
        if rules.get("version") != VERSION:
            return None
        print_, _ = fingerprint(root, str(rules["session"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return rules if rules.get("fingerprint") == print_ else None


def refresh(root: Path, session: str | None) -> dict[str, Any]:
    """The rules, rebuilt from the store when the saved ones are stale (and saved when settled)."""
    rules = load_fresh(root, session)
    if rules is not None:
        return rules
    from statedump.core.store.store import Store

    store = Store(root)
    sid = store.pick_session(session)
    before, settled = fingerprint(root, sid)
    rules = build(store.load(sid))
    rules["fingerprint"] = before
    if settled:
        path = guard_path(root, session)
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(rules, ensure_ascii=False, sort_keys=True), encoding="utf-8")
            os.replace(tmp, path)
    return rules


# -- building the rules (pydantic from here on: run only when the records changed) ----------


def _one_line(text: str, limit: int = 600) -> str:
    joined = " ".join(re.sub(r"\\\r?\n", " ", text).split())
    return joined if len(joined) <= limit else joined[: limit - 1] + "…"


def _program(state: SessionState, command_id: str) -> str | None:
    from statedump.models import Command
    from statedump.services.agents.guard import program_keys
    from statedump.services.flags import parse_command

    cmd = state.get(command_id)
    if not isinstance(cmd, Command):
        return None
    keys = sorted(program_keys(parse_command(cmd.text, cmd.form, cmd.env)))
    families = [k for k in keys if k in ("sglang", "vllm", "trtllm")]
    return families[0] if families else None


def _words(state: SessionState, ids: list[str]) -> tuple[list[str], list[str]]:
    """The user's words behind a record: its `prompted_by` instructions, quoted with their source."""
    from statedump.models import Instruction

    said, found = [], []
    for rid in ids:
        ins = state.get(rid)
        if isinstance(ins, Instruction):
            quote = _one_line(ins.quote, WORDS_LIMIT)
            said.append(f'The user\'s words ({ins.source or ins.id}): "{quote}"')
            found.append(ins.id)
    return said, found


def _current_setting(state: SessionState, flag: str | None, env: str | None, accepted: set[str | None]) -> str | None:
    """A current command that sets the flag (or variable) to an accepted value, as `id: text`."""
    from statedump.models import Command
    from statedump.services.flags import parse_command

    for cmd in state.of_kind(Command):
        if cmd.status != "current":
            continue
        parsed = parse_command(cmd.text, cmd.form, cmd.env)
        value = parsed.env.get(env) if env else parsed.value(flag or "")
        if value is not None and value in accepted:
            return f"{cmd.id}: `{_one_line(cmd.text)}`"
    return None


def _decisions(state: SessionState) -> list[dict[str, Any]]:
    from statedump.models import Command, Decision

    out = []
    for d in state.of_kind(Decision):
        if d.status != "accepted":
            continue
        said, said_ids = _words(state, d.links.prompted_by)
        for e in d.enforces:
            if e.value is None:
                continue
            cmd = state.get(e.command)
            works = f"Known to work: {e.setting()}" + (f", as in {cmd.status} command {cmd.id}." if isinstance(cmd, Command) else ".")
            good = f"{cmd.id}: `{_one_line(cmd.text)}`" if isinstance(cmd, Command) and cmd.status == "current" else None
            context = [f"Decision {d.id}: {_one_line(d.choice, 200)}.", *said, works]
            out.append(
                {
                    "decision": d.id,
                    "title": d.title,
                    "flag": e.flag,
                    "env": e.env,
                    "value": e.value,
                    "program": _program(state, e.command),
                    "words_ids": said_ids,
                    "context": context,
                    "good": good,
                }
            )
    # One rule per setting and program: a decision enforced on two commands (the launch line
    # and the unit file) says the same thing twice otherwise.
    unique: dict[tuple[Any, ...], dict[str, Any]] = {}
    for rule in out:
        unique.setdefault((rule["decision"], rule["flag"], rule["env"], rule["value"], rule["program"]), rule)
    return list(unique.values())


def _tokens(text: str) -> set[str]:
    return {t for t in re.split(r"[^a-z0-9]+", text.lower()) if t}


def same_target(target: str, hardware: str | None) -> bool:
    """Whether a compat cell's target is the session's machine: its model-like words (`SM120`,
    `H100`, `6000`: any with a digit) appear in the session's hardware, or, without such words,
    all of its words do. Without recorded hardware every cell counts."""
    if not hardware:
        return True
    have, want = _tokens(hardware), _tokens(target)
    marked = {t for t in want if any(c.isdigit() for c in t)}
    return bool(marked & have) if marked else want <= have


def _cell_flag(cell: Any) -> str | None:
    """The flag a compat cell's option is passed with: the one its repro gives that value, else
    the component's name as a flag (`MoE runner backend` -> `--moe-runner-backend`)."""
    from statedump.services.check import instruction_settings

    for flag, value in instruction_settings(cell.repro or "").items():
        if value == cell.option and flag.startswith("--"):
            return flag
    if re.fullmatch(r"[\w.:/+-]+", cell.option):
        return "--" + "-".join(_tokens(cell.component))
    return None


def _compat(state: SessionState, dead_ends: dict[str, list[str]]) -> list[dict[str, Any]]:
    from statedump.models import Command, Compat
    from statedump.services.flags import parse_command

    hardware = state.session.hardware
    cells = [c for c in state.of_kind(Compat) if same_target(c.target, hardware)]
    out = []
    for cell in cells:
        if cell.status != "fails":
            continue
        flag = _cell_flag(cell)
        if flag is None:
            continue
        works = [
            w for w in cells if w.status == "works" and w.component.casefold() == cell.component.casefold() and w.option != cell.option
        ]
        context = []
        if cell.symptom:
            context.append(f"Symptom: {_one_line(cell.symptom, 200)}")
        for did in dead_ends.get(cell.id, []):
            context.append(f"Discovery {did} rules it out.")
        good = None
        if works:
            shown = ", ".join(f"{flag} {w.option} (compat {w.id})" for w in works)
            good = _current_setting(state, flag, None, {w.option for w in works})
            context.append(
                f"Known to work on {cell.target}: {shown}" + (f", as in current command {good.split(':', 1)[0]}" if good else "") + "."
            )
        program = None
        for cmd in state.of_kind(Command):
            if parse_command(cmd.text, cmd.form, cmd.env).value(flag) is not None:
                program = _program(state, cmd.id)
                break
        out.append(
            {
                "id": cell.id,
                "title": cell.title,
                "flag": flag,
                "value": cell.option,
                "target": cell.target,
                "program": program,
                "dead_ends": dead_ends.get(cell.id, []),
                "context": context,
                "good": good,
            }
        )
    return out


def _settings(parsed: Any) -> dict[str, str]:
    found = {flag: values[-1] for flag, values in parsed.flags.items() if values and values[-1] is not None}
    found.update({f"${k}": v for k, v in parsed.env.items()})
    return found


def _dead_ends(state: SessionState) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    """Rules for ruled-out discoveries' commands, and which compat cells each discovery names."""
    from statedump.models import Benchmark, Command, Compat, Discovery
    from statedump.services.flags import parse_command

    current = [c for c in state.of_kind(Command) if c.status == "current"]
    rules: list[dict[str, Any]] = []
    cells: dict[str, list[str]] = {}
    for d in state.of_kind(Discovery):
        if d.status != "ruled-out":
            continue
        commands: list[Command] = []
        for rid in [*d.links.produced_by, *d.links.evidence, *d.links.relates_to]:
            rec = state.get(rid)
            if isinstance(rec, Compat):
                cells.setdefault(rec.id, []).append(d.id)
            elif isinstance(rec, Command):
                commands.append(rec)
            elif isinstance(rec, Benchmark):
                commands += [c for c in map(state.get, rec.links.produced_by) if isinstance(c, Command)]
        for cmd in commands:
            if cmd.status == "current":
                continue  # what runs now is no dead end
            program = _program(state, cmd.id)
            mine = _settings(parse_command(cmd.text, cmd.form, cmd.env))
            baseline: dict[str, str] = {}
            good = None
            for other in current:
                if _program(state, other.id) == program:
                    baseline = _settings(parse_command(other.text, other.form, other.env))
                    good = f"{other.id}: `{_one_line(other.text)}`"
                    break
            extra = {k: v for k, v in mine.items() if baseline.get(k) != v and not k.startswith("$")}
            named = {k: v for k, v in extra.items() if not re.fullmatch(r"[\d.]+", v)}
            numeric = {k: v for k, v in extra.items() if k not in named}
            if not extra:
                continue
            said, _ = _words(state, d.links.prompted_by)
            context = [*said]
            if d.body:
                context.append(_one_line(d.body, 300))
            rules.append(
                {
                    "discovery": d.id,
                    "title": d.title,
                    "command": cmd.id,
                    "program": program,
                    "named": named,
                    "numeric": numeric,
                    "context": context,
                    "good": good,
                }
            )
    return rules, cells


def build(state: SessionState) -> dict[str, Any]:
    """The guard's rules for one session (JSON-ready)."""
    dead_ends, cells = _dead_ends(state)
    decisions = _decisions(state)
    compat = _compat(state, cells)
    triggers = {r["flag"] or r["env"] for r in decisions}
    triggers |= {r["flag"] for r in compat}
    triggers |= {(k[1:] if k.startswith("$") else k) for r in dead_ends for k in (r["named"] or r["numeric"])}
    return {
        "version": VERSION,
        "session": state.session.id,
        "decisions": decisions,
        "compat": compat,
        "dead_ends": dead_ends,
        "triggers": sorted(t for t in triggers if t),
    }
