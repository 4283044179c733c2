"""Agents in the loop: the hooks Claude Code, Codex and opencode call, and their installers.

- `configs` knows each agent's configuration files (hooks, MCP servers, the opencode plugin);
  `install` merges statedump into them and takes it out again.
- `events` reads each agent's hook input and writes its answer.
- `capture` imports the transcript and tags dumps, in a worker that never holds the agent up.
- `guardfile` precomputes the guard's rules from the records; `guard` checks a shell command
  against them, fast and without pydantic, before every command an agent runs.
- `locate` and `hooklog` find the store and write the one-line log every failure goes to.
"""

from __future__ import annotations

AGENTS = ("claude-code", "codex", "opencode")
"""The agents `statedump agent install` knows."""
GUARD_MODES = ("off", "warn", "ask", "deny")
"""What the guard does with a command that contradicts the records; `warn` by default."""
DEFAULT_BUDGET = 2000
"""Tokens the resume prompt handed back at session start may use."""
