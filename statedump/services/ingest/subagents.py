"""Claude Code subagent transcripts, followed from the parent session's import.

Claude Code 2.x writes each subagent's turns to `<session>/subagents/agent-<id>.jsonl` beside
the session's own `<session>.jsonl` (with `agent-<id>.meta.json`: its type and description).
The parent's import reads them too: what a subagent ran, wrote, found and planned joins the
parent's records, each `prompted_by` the task of the call that started it (found by the
`agentId: <id>` Claude Code appends to the subagent's answer, else by the description in the
meta file). Its prompt is that task's body already and its closing reply the answer the parent
got, so its instructions, goal and closing report are not taken over. Compaction subagents (`agent-acompact-*`) are left out: the parent holds the same summary
as its compaction line. Each file can also be imported alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from statedump.models import Goal, Instruction, Task
from statedump.services.ingest.plan import ImportPlan


def subagent_files(path: Path) -> list[Path]:
    """The subagent transcripts of the session in `path`, in name order."""
    folder = path.with_suffix("") / "subagents"
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("agent-*.jsonl") if p.is_file() and not p.name.startswith("agent-acompact"))


def _described(path: Path) -> str | None:
    meta = path.with_name(path.name.removesuffix(".jsonl") + ".meta.json")
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    description = data.get("description") if isinstance(data, dict) else None
    return description if isinstance(description, str) and description.strip() else None


def follow(plan: ImportPlan, path: Path, spawned: dict[str, str], read: Callable[[Path], ImportPlan]) -> None:
    """Read the subagent files of the session in `path` into `plan` (`spawned`: agent id -> task record id)."""
    for sub in subagent_files(path):
        agent_id = sub.name.removeprefix("agent-").removesuffix(".jsonl")
        task = spawned.get(agent_id)
        if task is None and (description := _described(sub)) is not None:
            said = " ".join(description.split())
            task = next((r.id for r in plan.records if isinstance(r, Task) and r.title == said), None)
        try:
            child = read(sub)
        except Exception as err:
            plan.notes.append(f"subagent transcript {sub.name} not read: {err}")
            continue
        taken = 0
        for record in child.records:
            if isinstance(record, Instruction | Goal):
                continue
            if task is not None and "report" in record.tags and "subagent" not in record.tags:
                continue  # its closing reply is the answer the parent got, kept there already
            links = record.links
            if task is not None and task not in links.prompted_by and task != record.id:
                links = links.model_copy(update={"prompted_by": [*links.prompted_by, task]})
            tags = record.tags if "subagent" in record.tags else [*record.tags, "subagent"]
            plan.add(record.model_copy(update={"links": links, "tags": tags}))
            taken += 1
        plan.notes.append(
            f"subagent transcript {sub.parent.parent.name}/subagents/{sub.name}: {taken} records"
            + (f", prompted by {task}" if task else "")
            + (f"; {len(child.skipped)} lines skipped" if child.skipped else "")
        )
