"""`python -m statedump`, and the `statedump` command (`run`)."""

import sys
from typing import NoReturn


def run() -> None:
    """The `statedump` command line."""
    if sys.argv[1:2] == ["hook"]:
        # `statedump hook …` runs before every shell command an agent runs: it answers without
        # importing click, a fifth of its budget (`--help` and mistakes go on to click).
        from statedump.services.agents.handler import handle, parse_args

        args = parse_args(sys.argv[2:])
        if args is None and not {"-h", "--help"} & set(sys.argv):
            # A hook's command line the agent runs: a mistake in it must not fail the agent
            # (exit 2 blocks a Claude Code tool call), so it is logged like any other failure.
            from statedump.services.agents.handler import log_bad_args

            log_bad_args(sys.argv[2:])
            sys.exit(0)
        if args is not None:
            stdin = b"" if args.event == "worker" or sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
            sys.stdout.write(handle(args, stdin))
            sys.exit(0)
    from statedump.cli import main

    try:
        main()
    except SystemExit as done:
        leave(done.code)
    leave(0)


def leave(code: str | int | None) -> NoReturn:
    """Exit as the interpreter would (atexit handlers run, the output flushed, the same status),
    without first freeing every object one by one: after an import of 200 MB that alone took
    0.04 s. Only a process with no other thread leaves this way; a thread still at work is
    waited for, as usual."""
    import atexit
    import os
    import threading

    if threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)  # what sys.exit does with a message
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        sys.exit(code)  # a reader that went away, a closed stream: the interpreter's own way out
    os._exit(code if isinstance(code, int) else 0 if code is None else 1)


if __name__ == "__main__":
    run()
