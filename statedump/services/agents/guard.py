"""The guard: a shell command an agent is about to run, checked against what the records say.

Three rules, each read from the precomputed guard file (`guardfile`), never from the store:

- **decision** — the command sets a flag or an environment variable that an accepted
  decision enforces, to another value (`--kv-cache-dtype fp8_e4m3` against `bf16-kv-cache`);
- **compat** — it passes the option of a compatibility cell recorded `fails` on this
  target (`--moe-runner-backend flashinfer_trtllm` on SM120);
- **dead-end** — it repeats what made a ruled-out discovery: the settings by which that
  discovery's command differs from the current one (`--speculative-algorithm NEXTN`).

A rule with a program (`sglang`, `vllm`, or the launcher's name) applies only to commands
that start that program; flags are read by the same parser `check` uses
(`services.flags.parse_command`). Nothing here imports pydantic: the guard runs before every
shell command and has a budget of about a tenth of a second for the whole process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from statedump.services.flags import ParsedCommand


class Hit(NamedTuple):
    """One rule the command breaks."""

    rule: str
    """`decision`, `compat` or `dead-end`."""
    ids: tuple[str, ...]
    """The records behind it, the breaking one first."""
    reason: str
    """What is wrong, in words the model can act on: ids, the user's words, what works."""
    good: str | None = None
    """The current command known to work, as `id: <its text in backticks>`."""


def program_keys(parsed: ParsedCommand) -> set[str]:
    """What each simple command of a parsed command starts: a server family (`sglang`, `vllm`,
    `trtllm`, read by the importers' launch reader), else the launcher's label
    (`python -m sglang.bench_serving`), else the program's file name."""
    from statedump.services.ingest.launch import classify, server_family

    keys = set()
    for words in parsed.programs:
        family = server_family(words)
        if family is not None:
            keys.add(family)
            continue
        found = classify(words)
        if found is not None:
            keys.add(found.label.split(" ", 1)[0].rsplit("/", 1)[-1] if found.kind == "container" else found.label)
        elif words:
            keys.add(words[0].rsplit("/", 1)[-1])
    return keys


def _good(texts: dict[str, str], rule: dict[str, Any]) -> str | None:
    """The current command known to work, as `id: <its text in backticks>`."""
    good = rule.get("good")
    return f"{good}: `{texts[good]}`" if good in texts else None


def _applies(rule: dict[str, Any], keys: set[str]) -> bool:
    program = rule.get("program")
    return program is None or program in keys


def _setting(flag: str | None, env: str | None, value: str | None) -> str:
    if env is not None:
        return f"{env}={value}"
    return f"{flag} {value}" if value is not None else str(flag)


def _decision_hits(rules: list[dict[str, Any]], parsed: ParsedCommand, keys: set[str], rules_texts: dict[str, str]) -> list[Hit]:
    out = []
    for rule in rules:
        if not _applies(rule, keys):
            continue
        flag, env, value = rule.get("flag"), rule.get("env"), rule["value"]
        actual = parsed.env.get(env) if env is not None else parsed.value(flag or "")
        if actual is None or actual == value:
            continue
        told = f"this command sets {_setting(flag, env, actual)}, but accepted decision {rule['decision']} ({rule['title']}) enforces {_setting(flag, env, value)}."
        out.append(
            Hit("decision", (rule["decision"], *rule.get("words_ids", [])), " ".join([told, *rule["context"]]), _good(rules_texts, rule))
        )
    return out


def _compat_hits(rules: list[dict[str, Any]], parsed: ParsedCommand, keys: set[str], rules_texts: dict[str, str]) -> list[Hit]:
    out = []
    for rule in rules:
        if not _applies(rule, keys) or parsed.value(rule["flag"]) != rule["value"]:
            continue
        told = f"{rule['flag']} {rule['value']} is recorded as failing on {rule['target']}: compat cell {rule['id']} ({rule['title']})."
        out.append(Hit("compat", (rule["id"], *rule.get("dead_ends", [])), " ".join([told, *rule["context"]]), _good(rules_texts, rule)))
    return out


def _dead_end_hits(rules: list[dict[str, Any]], parsed: ParsedCommand, keys: set[str], rules_texts: dict[str, str]) -> list[Hit]:
    out = []
    for rule in rules:
        if not _applies(rule, keys):
            continue
        wanted: dict[str, str] = rule["named"] or rule["numeric"]
        if not all(parsed.env.get(k[1:]) == v if k.startswith("$") else parsed.value(k) == v for k, v in wanted.items()):
            continue
        shown = " ".join(f"{k[1:]}={v}" if k.startswith("$") else f"{k} {v}" for k, v in wanted.items())
        told = f"{shown} repeats command {rule['command']}, a dead end: discovery {rule['discovery']} ({rule['title']}) is ruled out."
        out.append(Hit("dead-end", (rule["discovery"], rule["command"]), " ".join([told, *rule["context"]]), _good(rules_texts, rule)))
    return out


def triggered(rules: dict[str, Any], text: str) -> bool:
    """False when the command names none of the flags and variables any rule is about: then it
    cannot break one, and is not even parsed (most commands an agent runs: ls, git, pytest)."""
    return any(word in text for word in rules.get("triggers", ()))


def check_command(rules: dict[str, Any], text: str) -> list[Hit]:
    """Every rule `text` breaks, in the order decision, compat, dead end."""
    if not text.strip() or not triggered(rules, text):
        return []
    from statedump.services.flags import parse_command

    parsed = parse_command(text)
    keys = program_keys(parsed)
    texts: dict[str, str] = rules.get("texts", {})
    return [
        *_decision_hits(rules.get("decisions", []), parsed, keys, texts),
        *_compat_hits(rules.get("compat", []), parsed, keys, texts),
        *_dead_end_hits(rules.get("dead_ends", []), parsed, keys, texts),
    ]


def reason(hits: list[Hit], mode: str) -> str:
    """The message the agent gets: what the records say, then what to do."""
    head = {
        "deny": "statedump guard blocked this command:",
        "ask": "statedump guard: ask the user before running this command:",
        "warn": "statedump guard warning:",
    }.get(mode, "statedump guard:")
    lines = [head, *(f"- {hit.reason}" for hit in hits)]
    # The same launch line backs most rules: shown once, after them.
    for good in dict.fromkeys(hit.good for hit in hits if hit.good):
        lines.append(f"The command known to work, current command {good}")
    ids = [hit.ids[0] for hit in hits]
    lines.append(f"`statedump why {ids[0]}` or `statedump show ID` gives the evidence.")
    return "\n".join(lines)
