"""A shell script or a file of command lines: one command record per launch.

The script is read with a real parser (`shellparse`, tree-sitter's bash grammar): every
server launch (`python -m sglang.launch_server`, `sglang serve`, `vllm serve`, the vLLM
OpenAI server module, `trtllm-serve`, `docker run` / `docker compose up` around them) and
every benchmark run becomes one command record, wherever it sits (a function, a `case`
arm, an `if`), with the variables the script sets put in. `text` keeps the statement
verbatim; what it resolves to goes in the body. Exported variables are its `env`.
Launches that are commented out (continuation lines too) become `previous` records.

A file with no launch at all is read as before, one record per block of lines, so that a
file of arbitrary command lines still imports.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from statedump.core.errors import StatedumpError
from statedump.core.render.markup import code
from statedump.models import Command
from statedump.models.ids import slugify
from statedump.services.flags import parse_command
from statedump.services.ingest.commandinfo import describe, program_name
from statedump.services.ingest.jsonl import Progress, read_text
from statedump.services.ingest.launch import Launch, classify
from statedump.services.ingest.plan import ImportPlan
from statedump.services.ingest.shellparse import Invocation, Script, parse_script

MAX_SCRIPT_BYTES = 4 * 1024 * 1024
"""A launch script is a few kilobytes; anything this large is not one (and would be slow)."""

_EXPORT = re.compile(r"^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
# Words that may start a launch: a comment line is parsed only when it holds one.
_LAUNCH_WORD = re.compile(r"sglang|vllm|trtllm|docker|podman|bench|genai-perf|guidellm|aiperf|text-generation|llama-server|lmdeploy")
# Steps around a launch that say nothing about the deployment.
# fmt: off
_TRIVIAL = {
    "echo", "printf", "exit", "return", "true", "false", ":", "set", "cd", "pushd", "popd", "sleep",
    "source", ".", "read", "shift", "trap", "wait", "local", "unset", "clear", "date",
}
# fmt: on


@dataclass
class _Found:
    line: int
    launch: Launch
    text: str
    status: str
    inv: Invocation
    env: dict[str, str]
    purpose: str | None = None


def _uncomment(line: str) -> str:
    body = line.lstrip()
    body = body.lstrip("#")
    return body[1:] if body.startswith(" ") else body


def _commented_launches(script: Script, env_at: list[tuple[int, dict[str, str]]]) -> tuple[list[_Found], set[int]]:
    """Launches written in comments: `# python … \\` with its `#     --flag …` lines after it."""
    found: list[_Found] = []
    used: set[int] = set()
    lines = dict(script.comments)
    for line, comment in script.comments:
        if line in used or comment.startswith("#!") or not _LAUNCH_WORD.search(comment):
            continue
        parts, at = [_uncomment(comment)], line
        while parts[-1].rstrip().endswith("\\") and at + 1 in lines:
            at += 1
            parts.append(_uncomment(lines[at]))
        text = "\n".join(parts).rstrip().rstrip("\\").rstrip()
        inner = parse_script(text, script.variables)
        if inner.error_lines or not inner.invocations:
            continue
        inv = inner.invocations[0]
        launch = classify([f"{k}={v}" for k, v in inv.prefix.items()] + inv.words)
        if launch is None or launch.words[0].startswith("-"):
            continue
        used.update(range(line, at + 1))
        env = next((e for at_line, e in reversed(env_at) if at_line < line), {})
        found.append(_Found(line, launch, text, "previous", inv, env))
    return found, used


def _purpose(line: int, comments: dict[int, str], taken: set[int]) -> str | None:
    """The comment lines right above a line (no blank line between), decoration left out."""
    notes: list[str] = []
    at = line - 1
    while at in comments and at not in taken and not comments[at].startswith("#!"):
        note = comments[at].strip().lstrip("#").strip()
        if note.strip("-=*#~ "):
            notes.insert(0, note)
        at -= 1
    return " ".join(notes) or None


def _body(found: _Found, steps: list[str]) -> str | None:
    launch, inv = found.launch, found.inv
    words = [f"{k}={v}" for k, v in inv.prefix.items()] + inv.words
    lines: list[str] = []
    if "$" in found.text:
        lines.append("Runs: " + code(shlex.join(words)))
    if launch.image:
        lines.append("Image: " + code(launch.image))
    prefix = [f"{k}={v}" for k, v in inv.prefix.items()]
    described = describe(parse_command(shlex.join(prefix + launch.flag_words()), "shell"), exclude_env=set(found.env))
    if described:
        lines.append(described)
    if launch.container_env:
        lines.append("Container environment: " + ", ".join(code(f"{k}={v}") for k, v in launch.container_env.items()))
    for condition in inv.conditions:
        lines.append("Inside: " + code(condition))
    by_condition: dict[str, list[str]] = {}
    for word, condition in inv.conditional:
        by_condition.setdefault(condition, []).append(word)
    for condition, added in by_condition.items():
        lines.append(f"Only when {code(condition)}: " + code(shlex.join(added)))
    if steps:
        lines.append("Before it the script runs: " + ", ".join(code(s) for s in steps))
    return "\n\n".join(lines) or None


def _steps(invocations: list[Invocation], launches: set[int], start: int, end: int) -> list[str]:
    out: list[str] = []
    for inv in invocations:
        if not start <= inv.line < end or id(inv) in launches or not inv.words:
            continue
        if inv.words[0].rsplit("/", 1)[-1] in _TRIVIAL:
            continue
        first = " ".join(inv.text.splitlines()[0].split())[:160]
        if first not in out:
            out.append(first)
    return out[:8]


def read(path: Path, progress: Progress | None = None) -> ImportPlan:
    """Read a shell script into a plan of command records."""
    text = read_text(path, "shell script")
    if len(text.encode("utf-8", "surrogatepass")) > MAX_SCRIPT_BYTES:
        raise StatedumpError(
            f"the file is over the {MAX_SCRIPT_BYTES}-byte limit for a shell script", where=path, hint="name the launch script itself"
        )
    plan = ImportPlan("shell", path)
    try:
        script = parse_script(text)
    except RecursionError:  # the walk is recursive: thousands of nested blocks are not a launch script
        raise StatedumpError("nested too deeply to be a launch script", where=path) from None
    live: list[_Found] = []
    env_at: list[tuple[int, dict[str, str]]] = []
    for inv in script.invocations:
        env_at.append((inv.line, inv.exported))
        launch = classify([f"{k}={v}" for k, v in inv.prefix.items()] + inv.words)
        if launch is not None:
            live.append(_Found(inv.line, launch, inv.text, "current", inv, inv.exported))
    previous, taken = _commented_launches(script, env_at)
    found = sorted(live + previous, key=lambda f: f.line)
    if not found:
        if script.error_lines:
            raise StatedumpError(
                f"not a shell script statedump can read: a syntax error at line {script.error_lines[0]}, and no launch found",
                where=path,
                hint="check the script with `bash -n`",
            )
        _read_blocks(text, path, plan)
    else:
        comments = dict(script.comments)
        launch_ids = {id(f.inv) for f in live}
        stem = slugify(path.stem or path.name)
        last = 0
        for index, item in enumerate(found, start=1):
            item.purpose = _purpose(item.line, comments, taken)
            steps = _steps(script.invocations, launch_ids, last, item.line) if item.status == "current" else []
            if item.status == "current":
                last = item.inv.end_line + 1
            tags = ["shell", item.launch.kind] + (["commented-out"] if item.status == "previous" else [])
            plan.add(
                Command(
                    id=stem if len(found) == 1 else f"{stem[:56]}-{index}",
                    title=f"{item.launch.title()} ({path.name})"[:300],
                    status=item.status,
                    form="shell",
                    text=item.text,
                    env=item.env,
                    purpose=item.purpose,
                    source=f"{path.name}:{item.line}",
                    tags=tags,
                    body=_body(item, steps),
                )
            )
        for line in script.error_lines:
            plan.skip(line, "the shell grammar cannot read this line")
    if progress is not None:
        progress(1, 1)
    return plan


# -- a file without a launch: blocks of lines, as statedump read every script before ----------


def _blocks(text: str) -> list[list[str]]:
    blocks: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.startswith("#!") or re.match(r"^\s*set\s+-[euxo]", line):
            continue
        if not line.strip():
            if blocks[-1] and not blocks[-1][-1].rstrip().endswith("\\"):
                blocks.append([])
            continue
        blocks[-1].append(line.rstrip())
    return [b for b in blocks if b]


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _read_blocks(text: str, path: Path, plan: ImportPlan) -> None:
    env: dict[str, str] = {}
    comment: list[str] = []
    commands: list[tuple[list[str], list[str], dict[str, str]]] = []
    for block in _blocks(text):
        if all(line.lstrip().startswith("#") for line in block):
            comment = [line.lstrip("# ").rstrip() for line in block]
            continue
        if all(_EXPORT.match(line) or line.lstrip().startswith("#") for line in block):
            for line in block:
                if m := _EXPORT.match(line):
                    env[m.group(1)] = _unquote(m.group(2))
            continue
        lead = []
        while block and block[0].lstrip().startswith("#"):
            lead.append(block.pop(0).lstrip("# ").rstrip())
        commands.append((comment + lead, block, dict(env)))
        comment = []
    if not commands:
        raise StatedumpError("no command found (only comments, blank lines or exports)", where=path, hint="name a script with commands")
    stem = slugify(path.stem or path.name)
    for index, (notes, lines, block_env) in enumerate(commands, start=1):
        body_text = "\n".join(lines)
        parsed = parse_command(body_text, "shell", block_env)
        program = program_name(parsed) or lines[0].split()[0]
        plan.add(
            Command(
                id=stem if len(commands) == 1 else f"{stem[:56]}-{index}",
                title=(notes[0] if notes else f"{program} ({path.name})")[:300],
                form="shell",
                text=body_text,
                env=block_env,
                purpose=" ".join(notes[1:]) or None,
                source=f"{path.name}:{index}",
                tags=["shell"],
                body=describe(parsed, exclude_env=set(block_env)),
            )
        )
