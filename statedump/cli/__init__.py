"""The `statedump` command: a thin click face over the library.

Subcommands are imported only when run, so `statedump --help` and `statedump
render` do not pay for Textual, the MCP SDK or the importers.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import sys
from typing import Any

import click

from statedump.core.errors import StatedumpError

# name -> ("module:function", one-line help). The help is kept here so that
# `statedump --help` lists every command without importing any of them.
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("statedump.cli.store_cmds:init", "Create a store (a git work tree with sessions/ and schemas/)."),
    "demo": ("statedump.cli.store_cmds:demo", "Build the example store and print its state document."),
    "session": ("statedump.cli.store_cmds:session", "Start, change or close a session (session new|edit|close)."),
    "sessions": ("statedump.cli.store_cmds:sessions", "List the sessions in the store."),
    "add": ("statedump.cli.records:add", "Add a record (flags, --from FILE|-, or $EDITOR)."),
    "edit": ("statedump.cli.records:edit", "Change a record (flags or $EDITOR)."),
    "status": ("statedump.cli.records:status", "Set a record's status."),
    "rm": ("statedump.cli.change_cmds:rm", "Remove a record (refused while others link to it; --force)."),
    "mv": ("statedump.cli.change_cmds:mv", "Rename a record and rewrite every link to it."),
    "supersede": ("statedump.cli.change_cmds:supersede", "Mark OLD replaced by NEW (statuses and link, one commit)."),
    "list": ("statedump.cli.records:list_records", "List records, filtered by kind, status, text."),
    "show": ("statedump.cli.records:show", "Show one record (now or --at REV)."),
    "render": ("statedump.cli.render_cmd:render", "Print the state document (Goal / Instructions / Discoveries / Accomplished)."),
    "dump": ("statedump.cli.history_cmds:dump", "Snapshot the current state as a dump tag."),
    "dumps": ("statedump.cli.history_cmds:dumps", "List the dump tags."),
    "log": ("statedump.cli.history_cmds:log", "History of a record or the session, newest first."),
    "diff": ("statedump.cli.history_cmds:diff", "Compare two states record by record."),
    "why": ("statedump.cli.audit_cmds:why", "Why a decision was made: question, evidence, numbers, commit."),
    "check": ("statedump.cli.audit_cmds:check", "Find drift, dangling links and conflicts (exit 1 on findings)."),
    "drift": ("statedump.cli.drift_cmd:drift", "Compare decisions with what really runs: unit, process, URL (exit 1 on drift)."),
    "bench": ("statedump.cli.bench_cmd:bench", "Benchmark tools (bench compare BASE CAND)."),
    "handoff": ("statedump.cli.report_cmds:handoff", "The report for the next person."),
    "resume": ("statedump.cli.report_cmds:resume", "A prompt that restores a new agent session."),
    "import": ("statedump.cli.import_cmd:import_", "Import transcripts, state dumps, benchmark files, units."),
    "export": ("statedump.cli.export_cmd:export", "Export decisions as adr-tools or MADR files."),
    "tui": ("statedump.cli.tui_cmd:tui", "Browse the session's history in a terminal UI."),
    "mcp": ("statedump.cli.mcp_cmd:mcp", "Serve the store to agents over MCP (stdio)."),
    "sync": ("statedump.cli.sync_cmd:sync", "Fetch, rebase and push the store through a git remote."),
    "doctor": ("statedump.cli.doctor_cmd:doctor", "Find and repair what a crash can leave behind."),
    "agent": (
        "statedump.cli.agent_cmd:agent",
        "Wire an agent's hooks and MCP (agent install|uninstall|status claude-code|codex|opencode).",
    ),
    "hook": ("statedump.cli.hook_cmd:hook", "The handler the agents' hooks call: capture, re-inject, guard (always exits 0)."),
    "validate": ("statedump.cli.store_cmds:validate", "Check a whole session (exit 2 on problems)."),
    "schema": ("statedump.cli.store_cmds:schema", "Write or check (--check) the JSON Schemas."),
}


def _available(name: str) -> bool:
    module = COMMANDS[name][0].split(":")[0]
    return importlib.util.find_spec(module) is not None


class LazyGroup(click.Group):
    """A group whose commands are imported on first use; domain errors become one line."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name in COMMANDS if _available(name)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS or not _available(cmd_name):
            return None
        module, attr = COMMANDS[cmd_name][0].split(":")
        command: click.Command = getattr(importlib.import_module(module), attr)
        return command

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        name = click.utils.make_str(args[0]) if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            from statedump.cli.usage import unknown_command

            raise unknown_command(ctx, name, self.list_commands(ctx))
        return super().resolve_command(ctx, args)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        # Usage mistakes become one line (statedump/cli/usage.py) instead of click's usage block.
        kwargs.pop("standalone_mode", None)
        kwargs["prog_name"] = "statedump"  # also under `python -m statedump` and click's test runner
        try:
            status = super().main(*args, **{**kwargs, "standalone_mode": False})
        except click.UsageError as err:
            from statedump.cli.usage import usage_line

            click.echo(usage_line(err), err=True)
            sys.exit(err.exit_code)
        except click.ClickException as err:
            click.echo(f"statedump: {err.format_message()}", err=True)
            sys.exit(err.exit_code)
        except click.exceptions.Abort:
            click.echo("Aborted.", err=True)
            sys.exit(1)
        sys.exit(status if isinstance(status, int) else 0)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        # A command builds tens of thousands of objects that live until it ends (records,
        # document lines); with the default thresholds the collector walks them over and
        # over (0.15 s of a 1 s render of 10,000 records). Collecting less often keeps
        # memory bounded for the long-running faces (tui, mcp) too.
        gc.set_threshold(50_000, 20, 100)
        try:
            return super().invoke(ctx)
        except StatedumpError as err:
            click.echo(f"statedump: {err}", err=True)
            sys.exit(err.status)
        except BrokenPipeError:
            raise
        except OSError as err:  # disk full, a size limit, a read-only store: one line, never a traceback
            from statedump.core.errors import from_os_error

            failure = from_os_error(err)
            click.echo(f"statedump: {failure}", err=True)
            sys.exit(failure.status)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="statedump")
def main() -> None:
    """Keep the state of long engineering sessions as records versioned in git.

    Start with `statedump demo DIR` to see the example session, or `statedump init`.
    """
