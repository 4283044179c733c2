"""A summary's tables read by their columns, wherever they stand: a compatibility matrix
(component / option / backend against result / works / status) gives compat rows, throughput or
latency columns give benchmarks, anything else stays a discovery holding the table."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from statedump.core.render import docformat as fmt
from statedump.services.ingest.mdtokens import plain

if TYPE_CHECKING:
    from markdown_it.tree import SyntaxTreeNode

BENCH_COLUMN = re.compile(
    r"tok(?:en)?s?/s|\bt/s\b|req(?:uest)?s?/s|\bms\b|\(s\)|ttft|tpot|\bitl\b|throughput|latency|\bqps\b|\brps\b|goodput|tokens per second|speed"
)
_CONCURRENCY = re.compile(r"concurren|parallel|\bbatch\b|\bclients?\b|\busers?\b|request rate|\brate\b|\brps\b|\bqps\b")
_RESULT = ("result", "status", "works", "working", "outcome", "supported", "support", "ok", "pass")
_SUBJECT = ("option", "backend", "value", "flag", "setting", "component", "feature", "parameter", "config", "model", "gpu", "platform")
_NUMBER = re.compile(r"[~>≈<]?\s*([-+]?[\d,]*\.?\d+)\s*([A-Za-z/%µ]*)")
_UNIT = re.compile(r"(tok(?:en)?s?/s|t/s|req(?:uest)?s?/s|ms|s|gb/s|mb/s|%|qps|rps)\b", re.I)


def cells(node: SyntaxTreeNode) -> tuple[list[str], list[list[str]]]:
    """A table's header (lower-cased) and body rows, as plain text."""
    header: list[str] = []
    rows: list[list[str]] = []
    for part in node.children:
        for tr in part.children:
            texts = [plain(c, ticks=False).strip() for c in tr.children]
            if part.type == "thead":
                header = [c.lower() for c in texts]
            else:
                rows.append(texts)
    return header, rows


def kind_of(header: list[str], section_mode: str | None) -> str | None:
    """`compat`, `benchmark` or None (a table kept as it is), by the columns first."""
    if any(BENCH_COLUMN.search(h) for h in header[1:]):
        return "benchmark"
    has_result = any(any(re.search(rf"\b{w}\b", h) for w in _RESULT) for h in header[1:])
    has_subject = any(any(re.search(rf"\b{w}", h) for w in _SUBJECT) for h in header)
    if has_result and (has_subject or section_mode == "compat"):
        return "compat"
    if section_mode in ("compat", "benchmark"):
        return section_mode
    return None


def compat_status(text: str) -> str:
    result = text.lower()
    if "partial" in result or "⚠" in result or re.search(r"\b(mostly|some|flaky|slow)\b", result):
        return "partial"
    if re.search(r"\b(fail(s|ed)?|no|broken|crash(es|ed)?|errors?|unusable|incompatible|unsupported|none)\b|❌|✗|✘", result):
        return "fails"
    if re.search(r"\b(works?|working|ok|yes|pass(es|ed)?|supported|stable|optimal|good)\b|✅|✔|✓", result):
        return "works"
    return "untested"


def compat_rows(header: list[str], rows: list[list[str]], section: str) -> list[dict[str, Any]]:
    """One compat cell per row."""
    out = []
    for row in rows:

        def col(key: str, *others: str, row: list[str] = row) -> str | None:
            # The header statedump's own matrix gives the column, then the words other templates use.
            names = (fmt.COMPAT.label(key).lower(), *others)
            for i, h in enumerate(header):
                if i < len(row) and any(re.search(rf"\b{re.escape(n)}", h) for n in names) and row[i]:
                    return row[i]
            return None

        option = col("option", "backend", "value", "flag", "setting", "feature", "parameter", "config", "model") or (
            row[0] if row else None
        )
        if not option:
            continue
        status = compat_status(col("result", *_RESULT) or "")
        component = col("component", "kind", "layer") or section
        target = col("target", "gpu", "hardware", "arch", "platform", "device") or "unspecified"
        out.append(
            {
                "title": f"{component}: {option} on {target}: {status}",
                "component": component,
                "option": option,
                "target": target,
                "status": status,
                "symptom": col("symptom", "error", "note", "notes", "comment", "reason", "details", "impact"),
            }
        )
    return out


def bench_rows(header: list[str], rows: list[list[str]], environment: dict[str, str]) -> list[dict[str, Any]]:
    """One benchmark per row: the title from the first text column, the concurrency from whichever
    column holds it, one metric per other numeric column, its unit from the header."""
    from statedump.models import Metric

    out = []
    for row in rows:
        metrics = []
        concurrency = None
        for i, h in enumerate(header[1:], start=1):
            if i >= len(row):
                break
            number = _NUMBER.fullmatch(row[i].replace(" ", ""))
            if number is None:
                continue
            value = float(number.group(1).replace(",", ""))
            if _CONCURRENCY.search(h) and not BENCH_COLUMN.search(h.replace("rps", "").replace("qps", "")):
                concurrency = int(value) if value >= 1 else None
                continue
            unit = re.search(r"\(([^)]+)\)", h)
            name = re.sub(r"\s*\([^)]*\)", "", h).strip()
            # The unit from `(tok/s)`, else a unit word in the header (`median TTFT ms`), else from the value (`172tok/s`).
            named = _UNIT.search(name.split()[-1]) if name.split() else None
            if named and named.group(0) == name.split()[-1] and len(name.split()) > 1:
                name = " ".join(name.split()[:-1])
            metric_unit = (unit.group(1) if unit else None) or (named.group(1) if named else None) or number.group(2) or "value"
            metrics.append(Metric(name=name.replace(" ", "_") or f"column_{i}", value=value, unit=metric_unit))
        if not metrics:
            continue
        title = row[0] if row else "benchmark"
        if _NUMBER.fullmatch(title.replace(" ", "")) and header:
            # A first column of numbers is a setting (`Request rate | 4`): named by its header.
            title = f"{header[0]} {title}"
            if concurrency is None and _CONCURRENCY.search(header[0]):
                concurrency = int(float(_NUMBER.fullmatch(row[0].replace(" ", "")).group(1).replace(",", ""))) or None  # type: ignore[union-attr]
        out.append({"title": title, "concurrency": concurrency, "metrics": metrics, "environment": environment, "key": "\x00".join(row)})
    return out


def environment_of(heading: str) -> dict[str, str]:
    """The model and GPU a results heading names (`## Llama-3-8B on H100`), for the environment."""
    out: dict[str, str] = {}
    m = re.search(r"\b(?:on|@)\s+(\d*x?\s*(?:H100|H200|A100|L40S?|A10G?|RTX\s?\d+\w*|MI\d+\w*|B200|GH200|T4|V100|\w+ GPU))", heading, re.I)
    if m:
        out["gpu"] = m.group(1).strip()
        heading = heading[: m.start()]
    model = re.search(r"([\w.-]+/)?[\w.-]*\d+(\.\d+)?[bBmM]\b[\w.-]*", heading)
    if model:
        out["model"] = model.group(0)
    return out


def bench_items(text: str) -> list[dict[str, Any]]:
    """Figures in a line of a results list (`AI: 1135 t/s (20B), 508 t/s (80B)`), as metrics."""
    from statedump.models import Metric

    metrics = []
    for m in re.finditer(r"~?([\d][\d,]*(?:\.\d+)?)(?:-[\d.]+)?\s*(tok(?:en)?s?/s|t/s|req/s|ms|GB/s|MB/s|IOPS|MIPS)\b", text, re.I):
        metrics.append({"value": float(m.group(1).replace(",", "")), "unit": m.group(2)})
    return [{"metrics": [Metric(name=f"value_{n + 1}" if n else "value", **m) for n, m in enumerate(metrics)]}] if metrics else []
