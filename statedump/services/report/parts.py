"""The material of a resume prompt: records picked from a state, and each drawn as Markdown.

Every drawing function takes `omit`, the set of detail levels the budget has
already dropped (names from `DROP_ORDER`), so that one prompt can be drawn at any
level of detail and the layouts for each agent share the same pieces.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from statedump.core.render import next_steps
from statedump.core.render.headline import headline
from statedump.core.render.markup import bullets, code, fenced, inline, link, paragraphs
from statedump.core.render.numbers import number
from statedump.models import (
    Benchmark,
    Command,
    Compat,
    Component,
    Decision,
    Discovery,
    File,
    Goal,
    Instruction,
    RecordBase,
    Reference,
    Task,
)
from statedump.models.state import SessionState

DROP_ORDER: tuple[tuple[str, str], ...] = (
    ("bodies", "record bodies"),
    ("sources", "sources of records other than instructions and decisions"),
    ("references", "references and relevant files"),
    ("benchmark-detail", "benchmark workloads"),
    ("done-tasks", "finished tasks"),
    ("stack", "the software stack"),
    ("decision-detail", "rejected alternatives and trade-offs of decisions"),
    ("decision-why", "the rationale of decisions"),
    ("step-detail", "expected impact of tasks"),
    ("earlier-requests", "one-off and finished user requests"),
    ("findings", "confirmed findings and working compatibility rows"),
    ("command-text", "verbatim commands other than the launch command and smoke tests"),
    ("other-benchmarks", "benchmark results other than baselines"),
    ("smoke-text", "verbatim smoke tests"),
    ("later-steps", "next steps after the first three"),
    ("criteria", "the goal's success criteria"),
    ("dead-end-detail", "symptoms of failed compatibility rows"),
    ("baselines", "baseline benchmark figures"),
    ("launch-text", "the verbatim launch command"),
)
"""What a budget drops, first to last, with the words the prompt's last line uses for it.

Prose goes first (bodies, rationale, what a task is expected to bring), then what a
resumed agent can look up, then — least valuable first — the open next steps beyond the
first three, the baseline figures and the launch command's text. Never dropped: the goal,
the standing instructions verbatim with their message ids, the accepted decisions'
choices and enforced flags, the dead ends and the first three next steps.
"""

KEPT_STEPS = 3
"""Next steps kept after `later-steps` is dropped."""


@dataclass
class Parts:
    """The records a resume prompt draws on, sorted into the roles they play."""

    state: SessionState
    goals: list[Goal] = field(default_factory=list)
    standing: list[Instruction] = field(default_factory=list)
    earlier: list[Instruction] = field(default_factory=list)
    accepted: list[Decision] = field(default_factory=list)
    proposed: list[Decision] = field(default_factory=list)
    rejected: list[Decision] = field(default_factory=list)
    dead_ends: list[Discovery] = field(default_factory=list)
    failed_compat: list[Compat] = field(default_factory=list)
    failed_commands: list[Command] = field(default_factory=list)
    findings: list[Discovery] = field(default_factory=list)
    working: list[Compat] = field(default_factory=list)
    launch: list[Command] = field(default_factory=list)
    other_commands: list[Command] = field(default_factory=list)
    verify: list[Command] = field(default_factory=list)
    benchmarks: list[Benchmark] = field(default_factory=list)
    stack: list[Component] = field(default_factory=list)
    done: list[Task] = field(default_factory=list)
    active: list[Task] = field(default_factory=list)
    blocked: list[Task] = field(default_factory=list)
    steps: list[Task] = field(default_factory=list)
    files: list[File] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)


def is_smoke_test(command: Command) -> bool:
    """A command that checks the running deployment: tagged, named or titled as a smoke test."""
    words = [command.id, command.title.lower(), *command.tags]
    return any("smoke" in w for w in words)


def launches_server(command: Command) -> bool:
    """A command whose text starts an inference server (SGLang, vLLM, TensorRT-LLM), as
    `drift` and the importers recognise one."""
    from statedump.services.flags import parse_command
    from statedump.services.ingest.launch import server_family

    parsed = parse_command(command.text, command.form, command.env)
    return any(server_family(words) for words in parsed.programs)


def _launch_commands(current: list[Command]) -> list[Command]:
    # The command a person types is what an agent re-runs; a unit file only when there is no such command.
    servers = [c for c in current if launches_server(c)]
    typed = [c for c in servers if c.form != "systemd"]
    return typed or servers


def select(state: SessionState) -> Parts:
    """Sort a state's records into the roles a resume prompt gives them."""
    instructions = state.of_kind(Instruction)
    decisions = state.of_kind(Decision)
    discoveries = state.of_kind(Discovery)
    compat = state.of_kind(Compat)
    commands = state.of_kind(Command)
    tasks = state.of_kind(Task)
    current = [c for c in commands if c.status == "current"]
    launch = _launch_commands(current)
    good = [c for c in current if c.last_known_good and c not in launch]
    return Parts(
        state=state,
        goals=state.of_kind(Goal),
        standing=[i for i in instructions if i.standing and i.status == "active"],
        earlier=[i for i in instructions if not (i.standing and i.status == "active")],
        accepted=[d for d in decisions if d.status == "accepted"],
        proposed=[d for d in decisions if d.status == "proposed"],
        rejected=[d for d in decisions if d.status == "rejected"],
        dead_ends=[d for d in discoveries if d.status == "ruled-out"],
        failed_compat=[c for c in compat if c.status == "fails"],
        failed_commands=[c for c in commands if c.status == "failed"],
        findings=[d for d in discoveries if d.status != "ruled-out"],
        working=[c for c in compat if c.status in ("works", "partial")],
        launch=launch,
        other_commands=[c for c in current if not c.last_known_good and c not in launch],
        verify=[c for c in good if is_smoke_test(c)] + [c for c in good if not is_smoke_test(c)],
        benchmarks=[b for b in state.of_kind(Benchmark) if b.status != "invalid" and (b.baseline or b.status == "valid" or b.metrics)],
        stack=[c for c in state.of_kind(Component) if c.status == "installed"],
        done=[t for t in tasks if t.status == "done"],
        active=[t for t in tasks if t.status == "in-progress"],
        blocked=[t for t in tasks if t.status == "blocked"],
        steps=next_steps(state),
        files=[f for f in state.of_kind(File) if f.status == "relevant"],
        references=[r for r in state.of_kind(Reference) if r.status != "outdated"],
    )


# -- small pieces -------------------------------------------------------------


def _bits(record: RecordBase, omit: frozenset[str], *extra: str, keep_source: bool = False) -> list[str]:
    bits = [*extra]
    if record.source and (keep_source or "sources" not in omit):
        bits.append(inline(record.source))
    bits.append(code(record.id))
    return bits


def _ref(record: RecordBase, omit: frozenset[str], *extra: str, keep_source: bool = False) -> str:
    """The trailing ` — extra · source · `id`` of an item."""
    return " — " + " · ".join(_bits(record, omit, *extra, keep_source=keep_source))


def _with_body(text: str, record: RecordBase, omit: frozenset[str]) -> str:
    if record.body and "bodies" not in omit:
        return text + "\n\n" + paragraphs(record.body)
    return text


def section(heading: str, blocks: Iterable[str], empty: str | None = None) -> str:
    """A heading and its blocks; an empty string when there is nothing (unless `empty` says so)."""
    body = "\n\n".join(b for b in blocks if b)
    if not body:
        if empty is None:
            return ""
        body = empty
    return f"{heading}\n\n{body}"


def listing(items: list[str], label: str | None = None) -> str:
    """A bullet list, with an optional lead-in line; empty when there are no items."""
    if not items:
        return ""
    text = bullets(items)
    return f"{label}\n\n{text}" if label else text


def numbered(items: list[str]) -> str:
    """A numbered list (items may span lines)."""
    loose = any("\n" in i for i in items)
    out = []
    for n, item in enumerate(items, 1):
        lead = f"{n}. "
        pad = " " * len(lead)
        lines = item.split("\n")
        out.append(lead + lines[0] + "".join("\n" + (pad + line if line.strip() else "") for line in lines[1:]))
    return ("\n\n" if loose else "\n").join(out)


# -- each kind of item --------------------------------------------------------


def goal_block(parts: Parts, omit: frozenset[str]) -> str:
    """The goal(s): title always, then body and success criteria while the budget allows."""
    if not parts.goals:
        return "_No goal recorded._"
    blocks = []
    for g in parts.goals:
        state = "" if g.status == "active" else f" ({g.status})"
        text = _with_body(f"**{inline(g.title)}**{state}", g, omit)
        if g.criteria and "criteria" not in omit:
            text += "\n\nSuccess criteria:\n\n" + bullets([inline(c) for c in g.criteria])
        blocks.append(text)
    return "\n\n".join(blocks)


def instruction_item(ins: Instruction, omit: frozenset[str]) -> str:
    """The user's words verbatim, then where they were said (the message id) and the record id."""
    quote = paragraphs(ins.quote)
    extra = [] if ins.standing and ins.status == "active" else [ins.status]
    tail = " · ".join(_bits(ins, omit, *extra, keep_source=True))
    block = "> " + quote.replace("\n", "\n> ").replace("> \n", ">\n")
    text = f"{block}\n\n— {tail}" if "\n" in quote else f'"{inline(quote)}" — {tail}'
    return _with_body(text, ins, omit)


def standing_items(parts: Parts, omit: frozenset[str]) -> list[str]:
    """Standing instructions: never dropped."""
    return [instruction_item(i, omit) for i in parts.standing]


def earlier_items(parts: Parts, omit: frozenset[str]) -> list[str]:
    """One-off and finished requests, until `earlier-requests` is dropped."""
    return [] if "earlier-requests" in omit else [instruction_item(i, omit) for i in parts.earlier]


def _settings(d: Decision) -> list[str]:
    # One line per set of commands, listing the flags and variables enforced on them.
    by_commands: dict[tuple[str, ...], list[str]] = {}
    per_setting: dict[str, list[str]] = {}
    for e in d.enforces:
        setting = f"{e.flag} {e.value}" if e.flag and e.value else (e.flag or f"{e.env}={e.value or ''}")
        per_setting.setdefault(setting.strip(), []).append(e.command)
    for setting, cmds in per_setting.items():
        by_commands.setdefault(tuple(cmds), []).append(setting)
    return [
        f"Enforced on {', '.join(code(c) for c in cmds)}: " + ", ".join(code(s) for s in settings) for cmds, settings in by_commands.items()
    ]


def decision_item(d: Decision, omit: frozenset[str]) -> str:
    """A decision: the choice and the flags it enforces always; why, alternatives and costs while they fit."""
    head = f"**{inline(d.title)}**" + _ref(d, omit, keep_source=True)
    facts = [f"Choice: {inline(d.choice)}"]
    if d.rationale and "decision-why" not in omit:
        facts.append(f"Why: {inline(d.rationale)}")
    facts += _settings(d)
    if "decision-detail" not in omit:
        facts += [f"Rejected: {inline(a.option)} — {inline(a.why_not)}" for a in d.alternatives]
        for t in d.tradeoffs:
            change = " → ".join(inline(v) for v in (t.before, t.after) if v)
            unit = f" {inline(t.unit)}" if t.unit and change else ""
            text = f"Trade-off: {inline(t.aspect)}" + (f": {change}{unit}" if change else "")
            facts.append(text + (f" — {inline(t.note)}" if t.note else ""))
    return _with_body(head + "\n\n" + bullets(facts), d, omit)


def open_question_items(parts: Parts, omit: frozenset[str]) -> list[str]:
    """Proposed decisions: questions still open."""
    out = []
    for d in parts.proposed:
        ask = f"{inline(d.question)} " if d.question else ""
        out.append(f"**{inline(d.title)}** — {ask}proposed: {inline(d.choice)} · " + " · ".join(_bits(d, omit, keep_source=True)))
    return out


def dead_end_items(parts: Parts, omit: frozenset[str]) -> list[str]:
    """Ruled-out discoveries, failed compatibility rows and commands, rejected decisions."""
    out = [_with_body(f"**{inline(d.title)}**" + _ref(d, omit), d, omit) for d in parts.dead_ends]
    for c in parts.failed_compat:
        what = f"{inline(c.component)} {code(c.option)} on {inline(c.target)} fails"
        if c.symptom and "dead-end-detail" not in omit:
            what += f": {inline(c.symptom)}"
        out.append(what + _ref(c, omit))
    out += [f"Failed command: {inline(c.title)}" + _ref(c, omit) for c in parts.failed_commands]
    out += [f"Rejected decision: {inline(d.title)} ({inline(d.choice)})" + _ref(d, omit, keep_source=True) for d in parts.rejected]
    return out


def finding_items(parts: Parts, omit: frozenset[str]) -> list[str]:
    """Confirmed findings and working compatibility rows, until `findings` is dropped."""
    if "findings" in omit:
        return []
    out = []
    for d in parts.findings:
        extra = [d.category] + ([d.status] if d.status != "confirmed" else [])
        out.append(_with_body(f"**{inline(d.title)}**" + _ref(d, omit, *extra), d, omit))
    for c in parts.working:
        out.append(f"{inline(c.component)} {code(c.option)} on {inline(c.target)} {c.status}" + _ref(c, omit))
    return out


def benchmark_items(parts: Parts, omit: frozenset[str]) -> list[str]:
    """Benchmark results with their headline figures and concurrency: baselines until
    `baselines` is dropped, the others until `other-benchmarks` is."""
    out = []
    for b in parts.benchmarks:
        if ("baselines" if b.baseline else "other-benchmarks") in omit:
            continue
        # The headline figures only: a GuideLLM result has some 230 metrics, `show` has them all.
        figures = ", ".join(f"{inline(m.name)} {number(m.value)} {inline(m.unit)}" for m in headline(b.metrics) or b.metrics)
        where = f"concurrency {b.concurrency}: " if b.concurrency else ""
        extra = [x for x in (f"{where}{figures}" if figures else "", "baseline" if b.baseline else "", b.status) if x]
        text = f"**{inline(b.title)}**" + _ref(b, omit, *extra)
        if b.workload and "benchmark-detail" not in omit:
            text += f"\n\nWorkload: {inline(b.workload)}"
        out.append(_with_body(text, b, omit))
    return out


def stack_items(parts: Parts, omit: frozenset[str]) -> list[str]:
    """Installed components, until `stack` is dropped."""
    if "stack" in omit:
        return []
    out = []
    for c in parts.stack:
        version = f" {inline(c.version)}" if c.version else ""
        built = f" ({inline(c.build)})" if c.build else ""
        out.append(f"{inline(c.name)}{version}{built} — {code(c.id)}")
    return out


def task_item(t: Task, omit: frozenset[str]) -> str:
    """A task: title, expected impact while it fits, priority and status."""
    head = f"**{inline(t.title)}**"
    if t.impact and "step-detail" not in omit:
        head += f" ({inline(t.impact)})"
    extra = ([f"P{t.priority}"] if t.priority else []) + [t.status]
    return _with_body(head + _ref(t, omit, *extra), t, omit)


def done_items(parts: Parts, omit: frozenset[str]) -> list[str]:
    return [] if "done-tasks" in omit else [task_item(t, omit) for t in parts.done]


def step_items(parts: Parts, omit: frozenset[str]) -> list[str]:
    """Next steps in priority order; only the first three once `later-steps` is dropped."""
    steps = parts.steps[:KEPT_STEPS] if "later-steps" in omit else parts.steps
    return [task_item(t, omit) for t in steps]


def _text_dropped(c: Command, omit: frozenset[str]) -> bool:
    return ("smoke-text" if is_smoke_test(c) else "command-text") in omit


def launch_blocks(parts: Parts, omit: frozenset[str]) -> list[str]:
    """The current launch command verbatim (the last thing a budget drops), or its title and id."""
    out = []
    for c in parts.launch:
        extra = (c.form,) if c.last_known_good else (c.form, "not yet known good")
        if "launch-text" in omit:
            out.append(f"**{inline(c.title)}**" + _ref(c, omit, *extra) + " — `statedump show ID` prints the text")
        else:
            out.append(command_block(c, omit, *extra))
    return out


def command_block(c: Command, omit: frozenset[str], *extra: str) -> str:
    """A command verbatim in a fence, with its title, purpose and id."""
    lines = [f"**{inline(c.title)}**" + _ref(c, omit, *(extra or (c.form,)))]
    if c.purpose:
        lines += ["", inline(c.purpose, start=True)]
    if c.env:
        lines += ["", fenced("\n".join(f"export {k}={v}" for k, v in c.env.items()), "bash")]
    lines += ["", fenced(c.text, "ini" if c.form == "systemd" else "bash")]
    return _with_body("\n".join(lines), c, omit)


def verify_blocks(parts: Parts, omit: frozenset[str]) -> list[str]:
    """The last known good commands, smoke tests first: what to run to check the deployment.

    Commands whose text the budget dropped are listed by title and id at the end.
    """
    shown = [command_block(c, omit) for c in parts.verify if not _text_dropped(c, omit)]
    named = [f"**{inline(c.title)}**" + _ref(c, omit, c.form) for c in parts.verify if _text_dropped(c, omit)]
    return [*shown, listing(named, "Also last known good (`statedump show ID` prints the text):" if shown else None)]


def other_command_items(parts: Parts, omit: frozenset[str]) -> list[str]:
    """Current commands not yet seen to work."""
    return [f"**{inline(c.title)}**" + _ref(c, omit, c.form, "not yet known good") for c in parts.other_commands]


def file_items(parts: Parts, omit: frozenset[str]) -> list[str]:
    if "references" in omit:
        return []
    return [_with_body(f"{code(f.path)} — {inline(f.title)}" + _ref(f, omit), f, omit) for f in parts.files]


def reference_items(parts: Parts, omit: frozenset[str]) -> list[str]:
    if "references" in omit:
        return []
    return [_with_body(link(r.title, r.url) + _ref(r, omit), r, omit) for r in parts.references]
