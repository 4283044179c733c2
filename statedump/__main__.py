"""`python -m statedump`, and the `statedump` command (`run`)."""

import sys


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

    main()


if __name__ == "__main__":
    run()
