"""The guard's rules, precomputed into two small JSON files beside the caches.

Reading the records (YAML, pydantic) costs more than the guard's whole budget, so the rules are
worked out once (`build`, from a loaded session) and kept in `.git/statedump/guard-rules.json`;
`guard.json` holds what every call needs: the session, the flags and variables the rules are
about, and a fingerprint of what they came from (see `fingerprint`). `load_fresh` recomputes the
fingerprint with a dozen `os.stat` calls and returns the header only when it matches; otherwise
the caller rebuilds (`refresh`). A change in the last two seconds is never trusted to have
settled (file times are coarser than writes), so the rules are then rebuilt without being saved,
as the record cache does.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from statedump.services.agents.locate import SESSIONS, state_dir

if TYPE_CHECKING:
    from statedump.models.state import SessionState
    from statedump.services.flags import ParsedCommand

VERSION = 1
KINDS = ("benchmark", "command", "compat", "decision", "discovery", "instruction")
"""The kind folders the rules are built from."""
RACY_NS = 2_000_000_000
WORDS_LIMIT = 300
"""The user's words quoted in a reason are cut to this many characters."""
SESSION_FILE = "session.yaml"


def guard_path(root: Path, session: str | None, part: str = "") -> Path:
    """`.git/statedump/guard.json` (the default session) or `guard-<session>.json`; `part`
    `-rules` names the file with the rules themselves (the first holds what every call needs)."""
    name = "guard" if session is None else f"guard-{session}"
    return state_dir(root) / f"{name}{part}.json"


def _code_stamp() -> str:
    # Rules written by other code are stale too: the modules that make and read them.
    here = Path(__file__).parent
    stamps = []
    for path in (Path(__file__), here / "guard.py", here.parent / "flags.py"):
        st = path.stat()
        stamps.append(f"{st.st_size}:{st.st_mtime_ns}")
    return ",".join(stamps)


def fingerprint(root: Path, session: str) -> tuple[str, bool]:
    """What the rules of `session` come from (the stats, as text), and whether it has all settled.

    It stats folders, not files: statedump, git and editors that save by renaming write each
    file under a new name, which changes its folder's time; git's index changes with every
    commit. Ten stats instead of ten thousand (a 10,000-record session took 80 ms to stat).
    An edit written in place and not committed is seen at the next commit or statedump write.
    """
    entries: list[tuple[str, int, int, int]] = []
    base = root / SESSIONS
    paths = [("index", root / ".git" / "index"), ("sessions", base), ("session", base / session / SESSION_FILE)]
    paths += [(kind, base / session / kind) for kind in KINDS]
    with os.scandir(base) as sessions:
        paths += [(f"s:{f.name}", Path(f.path) / SESSION_FILE) for f in sessions]
    newest = 0
    for name, path in paths:
        try:
            st = os.stat(path)
        except OSError:
            continue
        entries.append((name, st.st_size, st.st_mtime_ns, st.st_ino))
        newest = max(newest, st.st_mtime_ns)
    # The stats themselves, not a digest of them: a dozen short tuples, and hashlib alone (its
    # OpenSSL module) would cost a fifth of the guard's budget to load.
    return f"{VERSION} {_code_stamp()} {entries}", newest < time.time_ns() - RACY_NS


def load_fresh(root: Path, session: str | None) -> dict[str, Any] | None:
    """The saved header (session, fingerprint, triggers) when the records are unchanged, else None."""
    try:
        header: dict[str, Any] = json.loads(guard_path(root, session).read_bytes())
        if header.get("version") != VERSION:
            return None
        now, _ = fingerprint(root, str(header["session"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return header if header.get("fingerprint") == now else None


def load_rules(root: Path, session: str | None, header: dict[str, Any]) -> dict[str, Any] | None:
    """The rules that go with a fresh header (None: missing or not the same build)."""
    if "decisions" in header:
        return header
    try:
        rules: dict[str, Any] = json.loads(guard_path(root, session, "-rules").read_bytes())
    except (OSError, ValueError):
        return None
    return rules if rules.get("fingerprint") == header.get("fingerprint") else None


def _save(path: Path, data: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)


def refresh(root: Path, session: str | None) -> dict[str, Any]:
    """The saved header when fresh; else the rules rebuilt from the store (and saved when settled)."""
    header = load_fresh(root, session)
    if header is not None:
        return header
    from statedump.core.store.store import Store

    store = Store(root)
    sid = store.pick_session(session)
    before, settled = fingerprint(root, sid)
    rules = build(store.load(sid))
    rules["fingerprint"] = before
    if settled:
        # The rules first: a header is only ever found beside the rules it was built with.
        _save(guard_path(root, session, "-rules"), rules)
        _save(guard_path(root, session), {k: rules[k] for k in ("version", "session", "fingerprint", "triggers")})
    return rules


def rules_for(root: Path, session: str | None, header: dict[str, Any]) -> dict[str, Any]:
    """The full rules for a fresh header, rebuilt when the rules file is missing or damaged."""
    rules = load_rules(root, session, header)
    if rules is not None:
        return rules
    with contextlib.suppress(OSError):
        guard_path(root, session).unlink()
    return refresh(root, session)


# -- building the rules (pydantic from here on: run only when the records changed) ----------


def _one_line(text: str, limit: int = 600) -> str:
    joined = " ".join(re.sub(r"\\\r?\n", " ", text).split())
    return joined if len(joined) <= limit else joined[: limit - 1] + "…"


class _Commands:
    """Every command record parsed once, with the server family it starts (a big session has
    thousands: the rules look at each many times)."""

    def __init__(self, state: SessionState):
        from statedump.models import Command
        from statedump.services.agents.guard import program_keys
        from statedump.services.flags import parse_command

        self.parsed: dict[str, ParsedCommand] = {}
        self.program: dict[str, str | None] = {}
        self.records = state.of_kind(Command)
        for cmd in self.records:
            parsed = parse_command(cmd.text, cmd.form, cmd.env)
            self.parsed[cmd.id] = parsed
            families = sorted(k for k in program_keys(parsed) if k in ("sglang", "vllm", "trtllm"))
            self.program[cmd.id] = families[0] if families else None
        self.current = [c for c in self.records if c.status == "current"]
        self.by_flag: dict[str, list[str]] = {}
        for cmd in self.records:
            for flag in self.parsed[cmd.id].flags:
                self.by_flag.setdefault(flag, []).append(cmd.id)


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


def _current_setting(cmds: _Commands, flag: str | None, env: str | None, accepted: set[str | None]) -> str | None:
    """A current command that sets the flag (or variable) to an accepted value, as `id: text`."""
    for cmd in cmds.current:
        parsed = cmds.parsed[cmd.id]
        value = parsed.env.get(env) if env else parsed.value(flag or "")
        if value is not None and value in accepted:
            return cmd.id
    return None


def _decisions(state: SessionState, cmds: _Commands) -> list[dict[str, Any]]:
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
            good = cmd.id if isinstance(cmd, Command) and cmd.status == "current" else None
            context = [f"Decision {d.id}: {_one_line(d.choice, 200)}.", *said, works]
            out.append(
                {
                    "decision": d.id,
                    "title": d.title,
                    "flag": e.flag,
                    "env": e.env,
                    "value": e.value,
                    "program": cmds.program.get(e.command),
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


def _compat(state: SessionState, cmds: _Commands, dead_ends: dict[str, list[str]]) -> list[dict[str, Any]]:
    from statedump.models import Compat

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
        ruled = dead_ends.get(cell.id, [])
        if ruled:
            context.append(f"Ruled out by discovery {', '.join(ruled[:3])}.")
        good = None
        if works:
            good = _current_setting(cmds, flag, None, {w.option for w in works})
            # One working option per value, the one a current command uses first, at most three.
            options: dict[str, Any] = {}
            for w in works:
                options.setdefault(w.option, w)
            used = [o for o in options if good and cmds.parsed[good].value(flag) == o]
            shown = ", ".join(f"{flag} {o} (compat {options[o].id})" for o in [*used, *(o for o in options if o not in used)][:3])
            context.append(f"Known to work on {cell.target}: {shown}" + (f", as in current command {good}" if good else "") + ".")
        users = cmds.by_flag.get(flag, [])
        program = cmds.program[users[0]] if users else None
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


def _dead_ends(state: SessionState, cmds: _Commands) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    """Rules for ruled-out discoveries' commands, and which compat cells each discovery names."""
    from statedump.models import Benchmark, Command, Compat, Discovery

    baselines: dict[str | None, Command] = {}
    for other in cmds.current:
        baselines.setdefault(cmds.program[other.id], other)
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
            program = cmds.program[cmd.id]
            mine = _settings(cmds.parsed[cmd.id])
            base_cmd = baselines.get(program)
            baseline = _settings(cmds.parsed[base_cmd.id]) if base_cmd else {}
            good = base_cmd.id if base_cmd else None
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
    """The guard's rules for one session (JSON-ready); `texts` holds, once each, the commands
    known to work that the rules name (`good`)."""
    cmds = _Commands(state)
    dead_ends, cells = _dead_ends(state, cmds)
    decisions = _decisions(state, cmds)
    compat = _compat(state, cmds, cells)
    triggers = {r["flag"] or r["env"] for r in decisions}
    triggers |= {r["flag"] for r in compat}
    triggers |= {(k[1:] if k.startswith("$") else k) for r in dead_ends for k in (r["named"] or r["numeric"])}
    named = {r["good"] for r in [*decisions, *compat, *dead_ends] if r.get("good")}
    texts = {c.id: _one_line(c.text) for c in cmds.records if c.id in named}
    return {
        "version": VERSION,
        "session": state.session.id,
        "decisions": decisions,
        "compat": compat,
        "dead_ends": dead_ends,
        "texts": texts,
        "triggers": sorted(t for t in triggers if t),
    }
