"""`statedump agent status`: what is installed where, when each hook ran, what failed last."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from statedump.services.agents import AGENTS
from statedump.services.agents.hooklog import LastRun, failures, last_runs
from statedump.services.agents.install import Installed, installed
from statedump.services.agents.locate import find_root, state_dir


@dataclass
class AgentStatus:
    """The whole report."""

    project: Path
    store: Path | None
    installed: list[Installed] = field(default_factory=list)
    runs: list[LastRun] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    pending: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "project": str(self.project),
            "store": str(self.store) if self.store else None,
            "installed": [
                {
                    "agent": i.agent,
                    "scope": i.scope,
                    "hooks": sorted(i.hooks),
                    "mcp": i.mcp,
                    "plugin": i.plugin,
                    "guard": i.guard,
                    "files": [str(f) for f in i.files],
                }
                for i in self.installed
            ],
            "last_runs": [{"agent": r.agent, "event": r.event, "at": r.at.isoformat()} for r in self.runs],
            "capture_pending": self.pending,
            "failures": self.failures,
        }

    def lines(self) -> list[str]:
        out = [f"project: {self.project}", f"store:   {self.store or '(none found: the hooks do nothing until there is one)'}"]
        if not self.installed:
            out.append("nothing installed (statedump agent install claude-code|codex|opencode)")
        for i in self.installed:
            parts = []
            if i.hooks:
                parts.append("hooks " + ", ".join(sorted(i.hooks)))
            if i.plugin:
                parts.append("plugin")
            if i.mcp:
                parts.append("MCP server")
            parts.append(f"guard {i.guard or 'off'}")
            out.append(f"{i.agent} ({i.scope}): {'; '.join(parts)}")
        if self.runs:
            out.append("last runs:")
            out += [f"  {r.agent} {r.event}: {r.at.strftime('%Y-%m-%d %H:%M:%S')} UTC" for r in self.runs]
        elif self.store is not None:
            out.append("no hook has run yet")
        if self.pending:
            out.append(f"capture queue: {self.pending} job(s) waiting")
        if self.failures:
            out.append("last failures (.git/statedump/hooks.log):")
            out += [f"  {line}" for line in self.failures]
        return out


def agent_status(project: Path, store: Path | None) -> AgentStatus:
    """The report for a project (and the store its hooks use)."""
    from statedump.services.agents.capture import pending

    found = [i for agent in AGENTS for scope in ("project", "user") if (i := installed(agent, scope, project)).any]
    # The store the installed hooks name (as they find it: --store first), the project's own one
    # scope before the user's.
    named = next((i.store for i in found if i.store), None)
    root = find_root(store or named, project)
    report = AgentStatus(project, root, installed=found)
    if root is not None:
        folder = state_dir(root)
        report.runs = last_runs(folder)
        report.failures = failures(folder)
        report.pending = pending(root)
    return report
