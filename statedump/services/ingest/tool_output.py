"""What a tool's output says: whether a command failed, the findings in its output (the last
line of a traceback, CUDA errors, NaN or `!!!!` garbage, SGLang's FP8-scale warning), the metrics
of a printed benchmark result, the programs a shell line runs (and whether one checks the code)
and the files a patch touches."""

from __future__ import annotations

import re

from statedump.models import Metric
from statedump.services.flags import parse_command
from statedump.services.ingest.checks import _PREFIX, CHECKS, TRACKERS

_EXIT = re.compile(r"(?:^|\n)\s*(?:Exit code|exit code|exited with code|Process exited with code)[: ]\s*([1-9][0-9]*)")
_FP8 = re.compile(r"Using FP8 KV cache but no scaling factors provided[^\n]*")
_CUDA = re.compile(r"(?:CUDA error|RuntimeError: CUDA)[^\n]*")
_TRACE_LAST = re.compile(r"^([A-Za-z_][A-Za-z0-9_.]*(?:Error|Exception|Exit|Interrupt)(?::[^\n]*)?)$", re.M)
_GARBAGE = re.compile(r"!{6,}|\bNaN\b|\bnan\b")
_RESULT_HEAD = re.compile(r"=+\s*Serving Benchmark Result\s*=+")
_METRIC = re.compile(r"^\s*([A-Za-z][A-Za-z0-9 ./%_-]*?)\s*(?:\(([^()]+)\))?\s*:\s*(-?[0-9][0-9,]*(?:\.[0-9]+)?|inf)\s*$")
_SPECIAL = re.compile(r"[\\'\"`$(){}<>|&;#*?~\[\]!\n]")
_COUNTS = {
    "successful requests": "requests",
    "failed requests": "requests",
    "total input tokens": "tokens",
    "total generated tokens": "tokens",
    "total generated tokens (retokenized)": "tokens",
    "max request concurrency": "requests",
    "concurrency": "requests",
}


def failed_result(result: str) -> bool:
    """True when a command's output says it failed: a non-zero exit code or a traceback at its end."""
    tail = result[-4000:]
    if "xit" in result and _EXIT.search(result):
        return True
    return "Traceback (most recent call last)" in tail and bool(_TRACE_LAST.search(tail))


def findings(result: str) -> list[tuple[str, str]]:
    """Errors and warnings in a command's output, as (text, category)."""
    out: list[tuple[str, str]] = []
    if not result:
        return out
    if "FP8 KV cache" in result and (found := _FP8.search(result)):
        out.append((found.group(0).strip(), "finding"))
    if "CUDA" in result and (found := _CUDA.search(result)):
        out.append((found.group(0).strip()[:300], "risk"))
    if "Traceback (most recent call last)" in result:
        last = _TRACE_LAST.findall(result.rsplit("Traceback (most recent call last)", 1)[-1])
        if last:
            out.append((last[-1].strip()[:300], "risk"))
    if ("!!!!!!" in result or "nan" in result or "NaN" in result) and _GARBAGE.search(result) and "Benchmark Result" not in result:
        out.append(("the model's output was garbage (NaN / '!!!!'): numerically broken", "risk"))
    seen: set[str] = set()
    return [(t, c) for t, c in out if not (t in seen or seen.add(t))]  # type: ignore[func-returns-value]


def result_metrics(result: str) -> list[Metric]:
    """The metrics of a `Serving Benchmark Result` block (bench_serving, vllm bench serve), with units."""
    head = _RESULT_HEAD.search(result)
    if head is None:
        return []
    out: list[Metric] = []
    names: set[str] = set()
    for line in result[head.end() :].splitlines():
        if line.startswith("=" * 10) and out:
            break
        found = _METRIC.match(line)
        if found is None or found.group(3) == "inf":
            continue
        label, unit, value = found.group(1).strip(), found.group(2), found.group(3).replace(",", "")
        unit = unit or _COUNTS.get(label.lower()) or ("req/s" if "request throughput" in label.lower() else "count")
        name = re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")
        if name in names:
            continue
        names.add(name)
        out.append(Metric(name=name, value=float(value), unit=unit))
    return out


def programs(text: str) -> list[list[str]]:
    """Each simple command's words: split on blanks when the text has nothing a shell would
    read differently (quotes, escapes, expansions, operators), else read by `parse_command`."""
    plain = text.replace("\\\n", " ")
    if not _SPECIAL.search(plain):
        return [plain.split()] if plain.strip() else []
    return parse_command(text).programs


_CHECK = re.compile(_PREFIX + r"(?:" + CHECKS + r")(?:[\s\"]|$)")
_FILED = re.compile(_PREFIX + r"(?:" + TRACKERS + r")(?:\s|$)")


def filed_item(text: str) -> str | None:
    """The title of the work item a command files (`bd create --title="…"`, `gh issue create --title …`), or None."""
    if _FILED.match(" ".join(text.split())) is None:
        return None
    title = parse_command(text).value("--title") or parse_command(text).value("-t")
    return title.strip() if title and title.strip() else None


def checks_code(text: str) -> bool:
    """Whether a shell command line starts by checking the code (tests, linters, type checkers)."""
    return _CHECK.match(" ".join(text.replace("\\\n", " ").split())) is not None


def patched_files(patch: str) -> list[str]:
    """The files an `apply_patch` body names (`*** Update File: x`, `+++ b/x`)."""
    found = re.findall(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\+\+\+ (?:b/)?(\S+)", patch, re.M)
    return list(dict.fromkeys(a or b for a, b in found if (a or b) and (a or b) != "/dev/null"))


def tail(result: str) -> str:
    lines = [line for line in result.strip().splitlines() if line.strip()]
    return "\n".join(lines[-5:])[:1000]


def task_id(result: str) -> str | None:
    found = re.search(r"Task #?(\w+)", result)
    return found.group(1) if found else None


def as_int(value: str | None) -> int | None:
    try:
        number = int(float(value)) if value else None
    except ValueError:
        return None
    return number if number is not None and number >= 1 else None


def as_float(value: str | None) -> float | None:
    try:
        return float(value) if value and value != "inf" else None
    except ValueError:
        return None
