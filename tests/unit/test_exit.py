"""The command line leaves without freeing its objects one by one, but otherwise as the
interpreter would: the same status, its message, the output flushed, atexit handlers run."""

from __future__ import annotations

import subprocess
import sys

import pytest

_RUN = """
import atexit, sys
atexit.register(lambda: print("atexit ran", file=sys.stderr))
sys.argv = ["statedump", *sys.argv[1:]]
from statedump.__main__ import run
run()
"""


@pytest.mark.parametrize(
    ("args", "status", "out", "err"),
    [
        (["--version"], 0, "statedump, version", ""),
        (["nosuch"], 2, "", "no such command 'nosuch'"),
        (["render", "--store", "/nonexistent/store"], 2, "", "statedump:"),
    ],
)
def test_the_exit_keeps_status_output_and_atexit(args: list[str], status: int, out: str, err: str) -> None:
    done = subprocess.run([sys.executable, "-c", _RUN, *args], capture_output=True, text=True, check=False)
    assert done.returncode == status, done.stderr
    assert out in done.stdout and err in done.stderr
    assert done.stderr.rstrip().endswith("atexit ran")
    assert "Traceback" not in done.stderr


def test_a_thread_still_running_is_waited_for() -> None:
    code = """
import sys, threading, time
from statedump.__main__ import leave
threading.Thread(target=lambda: (time.sleep(0.3), print("thread done", flush=True))).start()
leave(3)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 3 and "thread done" in done.stdout


def test_a_message_exit_prints_it_and_gives_status_1() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from statedump.__main__ import leave; leave('went wrong')"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1 and done.stderr.strip() == "went wrong"
