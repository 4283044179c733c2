"""When a process may fork a copy of itself to work on the second core.

It can (the system has fork), there is a second core to run on, and no other thread runs:
forking a process with threads can copy into the child a lock that some thread holds, and
nothing would ever release it there. The TUI and the MCP server have threads, and so work in
order; a command line run is single-threaded until it starts one.
"""

from __future__ import annotations

import os
import threading


def _cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def can_fork() -> bool:
    """Whether this process may fork to work on two cores (see the module's note)."""
    return hasattr(os, "fork") and threading.active_count() == 1 and _cores() > 1
