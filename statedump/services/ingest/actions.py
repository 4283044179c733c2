"""What an agent did, read from its tool calls: agent-neutral, for every transcript reader.

A reader hands each tool call (its name, input, result text, whether it failed, and where
it is in the transcript) to `Actions.tool`, or to the narrower methods, and calls `finish`
at the end. What becomes a record:

- the agent's plan (TodoWrite, TaskCreate/TaskUpdate, any agent's todo list) -> tasks, one
  per item across updates (the id comes from the item's content; the latest status wins;
  an item a later full list leaves out keeps its last status);
- a shell command that starts a server (`launch.classify`) -> a command record with the
  text as written: the last launch that worked is `current`, earlier ones `previous`, one
  whose result shows an error `failed`; any other shell command that failed -> a `failed`
  command too (what did not work is worth knowing);
- a benchmark run -> a benchmark record from the result block it printed, `produced_by`
  the server that was running;
- errors in those results (a traceback's last line, `CUDA error`, NaN or `!!!!` output,
  SGLang's FP8 KV cache warning) -> discoveries linked to the command; two launches that
  differ in one flag, the first failing and the second working -> compat cells;
- files written or edited -> file records; pages fetched and URLs the person gave ->
  reference records.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from statedump.core.redact import redact_text
from statedump.models import Command, Decision, Discovery, File, Links, Reference, Task
from statedump.services.ingest.bench_calls import benchmark_records
from statedump.services.ingest.compat_cells import LaunchSeen, compat_cells, gpu_named, retarget
from statedump.services.ingest.launch import Launch, classify
from statedump.services.ingest.plan import ImportPlan, one_line, stable_id
from statedump.services.ingest.reports import report
from statedump.services.ingest.tool_output import (
    checks_code,
    failed_result,
    filed_item,
    findings,
    patched_files,
    programs,
    tail,
    task_id,
)

SHELL_TOOLS = {"bash", "shell", "exec", "exec_command", "local_shell", "run_shell_command", "execute_command", "run_terminal_cmd"}
EDIT_TOOLS = {"write": "written", "edit": "edited", "multiedit": "edited", "notebookedit": "edited", "apply_patch": "patched"}
FETCH_TOOLS = {"webfetch", "fetch", "web_fetch"}
SUBAGENT_TOOLS = {"task", "agent", "spawn_agent"}
"""Tools that hand work to a subagent: the work is a task, done when its answer came back."""
TODO_TOOLS = {"todowrite", "update_plan", "todo_write"}

TODO_STATUS = {
    "pending": "todo",
    "todo": "todo",
    "in_progress": "in-progress",
    "in-progress": "in-progress",
    "completed": "done",
    "done": "done",
    "cancelled": "dropped",
    "canceled": "dropped",
    "deleted": "dropped",
    "blocked": "blocked",
}
_AGENT_ID = re.compile(r"^agentId: ([A-Za-z0-9_-]{4,64})\b", re.M)
_AGENT_TRAILER = re.compile(r"^agentId: |^<usage>", re.M)
"""What Claude Code appends to a subagent's answer (its id, token counts): not the answer."""
_ANSWER = re.compile(r'"([^"\n]{3,300})"="([^"\n]{1,300})"')
"""Claude Code's AskUserQuestion result: `User has answered your questions: "Q"="A", "Q2"="A2".`"""
_URL = re.compile(r"https?://[^\s<>\"'`)\]]+")
_MAY_LAUNCH = re.compile(
    r"sglang|vllm|trtllm|docker|podman|nerdctl|compose|bench|genai-perf|guidellm|aiperf|serve|llama-server|lmdeploy|text-generation"
)


def todo_status(value: object) -> str:
    """A plan item's status as a task status (unknown ones are `todo`)."""
    return TODO_STATUS.get(str(value).strip().lower(), "todo")


@dataclass
class Actions:
    """Turns one agent's tool calls, in transcript order, into records on `plan`."""

    plan: ImportPlan
    agent: str = "agent"
    hardware: str | None = None
    """The session's GPU, when known: the target of compat cells."""
    tasks: dict[str, str] = field(default_factory=dict)
    """A tool's own task id -> the record id (TaskCreate / TaskUpdate)."""
    subagents: dict[str, str] = field(default_factory=dict)
    """A subagent's id (Claude Code's `agentId: …` in the answer) -> the task record of its call."""
    _launches: list[LaunchSeen] = field(default_factory=list)
    _launch_ids: set[str] = field(default_factory=set)
    _files: dict[str, File] = field(default_factory=dict)
    _urls: set[str] = field(default_factory=set)
    _failed: set[str] = field(default_factory=set)

    # -- dispatch ---------------------------------------------------------------------------

    def tool(
        self, name: str, args: dict[str, Any], result: str = "", is_error: bool = False, source: str = "", at: datetime | None = None
    ) -> None:
        """One tool call, whatever the agent: those this module knows become records."""
        low = name.lower()
        if low in SHELL_TOOLS:
            text = args.get("command") or args.get("cmd")
            if isinstance(text, list):
                text = " ".join(shlex.quote(str(w)) for w in text)
            if isinstance(text, str) and text.strip():
                self.shell(text, result, is_error, source, at)
        elif low in EDIT_TOOLS:
            path = args.get("file_path") or args.get("notebook_path") or args.get("path")
            if isinstance(path, str) and path.strip() and is_error:
                # A write that was refused (no permission, the file changed): the file still
                # matters, and why it was not written is worth knowing.
                record = self.file(path, f"not {EDIT_TOOLS[low]}: the call failed", source, at)
                if (said := one_line(re.sub(r"</?tool_use_error>", "", result), 300)).strip():
                    self._findings([(said, "risk")], record.id, source, at)
            elif isinstance(path, str) and path.strip():
                self.file(path, EDIT_TOOLS[low], source, at)
            elif low == "apply_patch":
                for patched in patched_files(str(args.get("input") or args.get("patch") or "")):
                    self.file(patched, "patched", source, at)
        elif low in FETCH_TOOLS:
            url = args.get("url")
            if isinstance(url, str) and url.startswith("http"):
                self.reference(url, source, at, what=str(args.get("prompt") or "") or None)
        elif low in TODO_TOOLS:
            items = args.get("todos") or args.get("plan")
            if isinstance(items, list):
                self.todo_items(items, source, at)
        elif low == "taskcreate":
            subject = args.get("subject") or args.get("description")
            if isinstance(subject, str) and subject.strip():
                self.task(subject, "todo", source, at, tool_id=task_id(result), body=str(args.get("description") or "") or None)
        elif low in SUBAGENT_TOOLS:
            what = args.get("description") or args.get("prompt")
            if isinstance(what, str) and what.strip():
                state = "blocked" if is_error else ("done" if result.strip() else "in-progress")
                task = self.task(
                    one_line(what, 200), state, source, at, body=str(args.get("prompt") or "")[:2000] or None, tags=["subagent"]
                )
                if agent_id := _AGENT_ID.search(result):
                    self.subagents[agent_id.group(1)] = task.id
                answer = _AGENT_TRAILER.split(result, 1)[0]
                if not is_error and answer.strip():
                    report(
                        self.plan, answer, source, at, tags=[self.agent, "subagent"], who=f"Subagent ({one_line(what, 60)})", task=task.id
                    )
        elif low == "askuserquestion":
            self.answers(result, source, at)
        elif low == "taskupdate":
            tid, status = str(args.get("taskId") or ""), args.get("status")
            if tid in self.tasks and isinstance(status, str):
                self._restatus(self.tasks[tid], todo_status(status))

    # -- the plan ---------------------------------------------------------------------------

    def todo_items(self, items: list[Any], source: str = "", at: datetime | None = None) -> list[str]:
        """A full todo list (TodoWrite, update_plan): one task per item, the latest status wins.
        Returns the ids of the items' tasks."""
        out = []
        for item in items:
            if not isinstance(item, dict):
                continue
            text = item.get("content") or item.get("step") or item.get("subject") or item.get("title")
            if not isinstance(text, str) or not text.strip():
                continue
            priority = {"high": 1, "medium": 2, "low": 3}.get(str(item.get("priority", "")).lower())
            out.append(self.task(text, todo_status(item.get("status")), source, at, priority=priority).id)
        return out

    def task(
        self,
        text: str,
        status: str,
        source: str = "",
        at: datetime | None = None,
        *,
        tool_id: str | None = None,
        priority: int | None = None,
        body: str | None = None,
        tags: list[str] | None = None,
    ) -> Task:
        said = " ".join(text.split())
        record_id = self.plan.readable_id("task", one_line(said, 40), key=f"task:{said}")
        old = next((r for r in self.plan.records if r.id == record_id), None)
        task = Task(
            id=record_id,
            title=one_line(said, 200),
            status=status,
            source=source or None,
            at=at,
            priority=priority,
            body=body or (old.body if old is not None else None),
            tags=[self.agent, *(tags or ["plan"])],
            links=old.links if old is not None else Links(),
        )
        self.plan.add(task)
        if tool_id:
            self.tasks[tool_id] = record_id
        return task

    def _restatus(self, record_id: str, status: str) -> None:
        for record in self.plan.records:
            if record.id == record_id and isinstance(record, Task):
                self.plan.add(record.model_copy(update={"status": status}))

    def answers(self, result: str, source: str = "", at: datetime | None = None) -> None:
        """The person's answers to the agent's questions (`"Question"="Answer"`): decisions they made."""
        for question, answer in _ANSWER.findall(result):
            said = f'"{question}"="{answer}"'
            self.plan.add(
                Decision(
                    id=self.plan.readable_id("dec", one_line(f"{question} {answer}", 40), key=f"answer:{source}:{said}"),
                    title=one_line(f"{question} {answer}", 200),
                    status="accepted",
                    question=question,
                    choice=answer,
                    deciders=["the user"],
                    body=said,
                    source=source or None,
                    at=at,
                    tags=[self.agent, "answered"],
                )
            )

    # -- shell ------------------------------------------------------------------------------

    def shell(self, text: str, result: str = "", is_error: bool = False, source: str = "", at: datetime | None = None) -> None:
        """A shell command the agent ran, with what it printed."""
        failed = is_error or failed_result(result)
        if self.hardware is None and result:
            self.notice(result)
        launches = [found for words in programs(text) if (found := classify(words)) is not None] if _MAY_LAUNCH.search(text) else []
        server = next((f for f in launches if f.kind in ("server", "container", "compose")), None)
        bench = next((f for f in launches if f.kind == "benchmark"), None)
        if server is not None:
            self._server(text, server, result, failed, source, at)
        if bench is not None:
            self._benchmark(text, bench, result, failed, source, at)
        if server is not None or bench is not None:
            return
        if not failed and (item := filed_item(text)) is not None:
            self.task(item, "todo", source, at, body=f"Filed with: {one_line(text, 300)}", tags=["filed"])
            return
        check = checks_code(text)
        if not (failed or check):
            return
        said = " ".join(text.split())
        if failed and said in self._failed:
            return
        if failed:
            self._failed.add(said)
        else:
            self._failed.discard(said)
        self.plan.add(
            Command(
                id=self.plan.readable_id("cmd", one_line(said, 40), key=f"cmd:{said}"),
                title=one_line(said, 200),
                status="failed" if failed else "current",
                text=text.strip(),
                source=source or None,
                at=at,
                purpose="checks the code (tests, linters, type checks)" if check else None,
                tags=[self.agent, "failed" if failed else "check"],
                body=tail(result) or None,
            )
        )

    def _server(self, text: str, found: Launch, result: str, failed: bool, source: str, at: datetime | None) -> None:
        said = " ".join(text.split())
        found_now = findings(result)
        failed = failed or any(category == "risk" for _, category in found_now)
        record_id = self.plan.readable_id("launch", found.title(), key=f"launch:{said}")
        if self._launches and (earlier := self._launches[-1]).record.status == "current" and earlier.record.id != record_id:
            # (Only the last launch can be current: each new one makes the one before it previous.)
            earlier.record = earlier.record.model_copy(update={"status": "previous"})
            self.plan.add(earlier.record)
        command = Command(
            id=record_id,
            title=found.title()[:300],
            status="failed" if failed else "current",
            text=text.strip(),
            source=source or None,
            at=at,
            tags=[self.agent, found.kind],
        )
        self.plan.add(command)
        if record_id in self._launch_ids:
            self._launches = [e for e in self._launches if e.record.id != record_id]
        self._launch_ids.add(record_id)
        self._launches.append(LaunchSeen(command, found, failed))
        self._findings(found_now, record_id, source, at)
        if not failed:
            compat_cells(self.plan, self._launches, self.hardware, self.agent)

    def server(self) -> str | None:
        """The command record of the server running now (the last launch that did not fail)."""
        for item in reversed(self._launches):
            if not item.failed:
                return item.record.id
        return self._launches[-1].record.id if self._launches else None

    def _benchmark(self, text: str, found: Launch, result: str, failed: bool, source: str, at: datetime | None) -> None:
        server = self.server()
        if server is not None:
            self._findings(findings(result), server, source, at)
        benchmark_records(self.plan, text, found, result, failed, source, at, server=server, agent=self.agent)

    def _findings(self, found: list[tuple[str, str]], command_id: str, source: str, at: datetime | None) -> None:
        for text, category in found:
            self.plan.add(
                Discovery(
                    id=stable_id("disc", text, key=f"{command_id}:{text}"),
                    title=one_line(text, 200),
                    category=category,
                    source=source or None,
                    at=at,
                    tags=[self.agent],
                    links=Links(relates_to=[command_id]),
                )
            )

    # -- files and references ---------------------------------------------------------------

    def file(self, path: str, what: str, source: str = "", at: datetime | None = None) -> File:
        """A file the agent wrote or edited: one record per path, saying what was done."""
        path = path.strip()
        old = self._files.get(path)
        done = what if old is None or not old.body else (old.body if what in old.body else f"{old.body}, {what}")
        record = File(
            id=old.id if old is not None else self.plan.readable_id("file", path.rsplit("/", 1)[-1], key=f"file:{path}"),
            title=path[:300],
            path=path,
            source=old.source if old is not None else (source or None),
            at=old.at if old is not None else at,
            body=done,
            tags=[self.agent],
        )
        self._files[path] = record
        self.plan.add(record)
        return record

    def reference(self, url: str, source: str = "", at: datetime | None = None, what: str | None = None) -> None:
        """A page the agent fetched or the person pointed to: one record per URL."""
        # Credentials in a URL (`https://user:secret@host`) never reach a record, its id or a commit.
        url = re.sub(r"^([a-z][a-z0-9+.-]*://)[^/@\s]*@", r"\1", redact_text(url.rstrip(".,;:")), flags=re.I)
        if url in self._urls:
            return
        self._urls.add(url)
        self.plan.add(
            Reference(
                id=self.plan.readable_id("ref", url.split("://", 1)[-1], key=f"ref:{url}"),
                title=url[:300],
                url=url,
                source=source or None,
                at=at,
                body=what,
                tags=[self.agent],
            )
        )

    def user_urls(self, text: str, source: str = "", at: datetime | None = None) -> None:
        """URLs in what the person typed (and the GPU they name)."""
        self.notice(text)
        for url in _URL.findall(text):
            self.reference(url, source, at, what="shared by the user")

    def notice(self, text: str) -> None:
        """Text the session shows (the person's words, a command's output): the GPU it names
        first is the session's hardware, the target of its compat cells."""
        if self.hardware is None:
            self.hardware = gpu_named(text)

    def finish(self) -> None:
        """Call at the end: compat cells made before the GPU was named get it as their target."""
        if self.hardware is not None:
            retarget(self.plan, self.hardware)
