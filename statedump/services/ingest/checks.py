"""The command lines that check the code or file a work item, as patterns.

Kept apart from tool_output.py, which reads what such commands print: the transcript's line
filter (claude_bytes.py) needs only these patterns, in a process that must start before the
models are imported (see linescan.py).
"""

from __future__ import annotations

CHECKS = (
    r"pytest|pyright|mypy|ruff|flake8|pylint|tox|nox|eslint|tsc|golangci-lint|go (?:test|vet|build)|"
    r"cargo (?:test|clippy|check|build)|(?:npm|pnpm|yarn|bun) (?:test|run [\w:-]+)|make (?:test|check|lint)\b|"
    r"mise run [\w:-]+|just (?:test|check|lint)|mix (?:test|credo|dialyzer|format)|rspec|phpunit|gradle (?:test|check)"
)
"""A program that checks or builds the code (tests, linters, type checkers): a command a
session keeps, since it says how this project is verified."""
TRACKERS = r"bd create|gh issue create|glab issue create"
"""Issue trackers' commands that file a work item (beads, GitHub, GitLab): a task to do."""
_PREFIX = (
    r"(?:(?:cd|source|\.|export|pushd) [^\"&;|]*(?:&&|;) *)*(?:[A-Za-z_][A-Za-z0-9_]*=[^ \"]* )*(?:(?:sudo|env|time|nice) )*"
    r"(?:(?:uv|poetry|pdm|hatch|pipenv|rye) run |npx |bunx |python3? -m )?"
)
CHECK_START = _PREFIX + r"(?:" + CHECKS + "|" + TRACKERS + r")(?:[\s\"]|$)"
"""A command line that starts with a check or files a work item (after `cd … &&`, `source … ;`, `VAR=value`)."""
