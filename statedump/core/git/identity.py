"""Who signs: git's own identity, or statedump's when git has none."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

FALLBACK_NAME = "statedump"
FALLBACK_EMAIL = "statedump@localhost"
ROLES = ("AUTHOR", "COMMITTER")


@dataclass(frozen=True)
class Identity:
    """The environment that makes git sign as `author` and `committer` (`Name <email>`)."""

    env: dict[str, str]
    author: str
    committer: str


def ask_identity(var: Callable[[str], subprocess.CompletedProcess[bytes]]) -> Identity:
    """The identity git would sign with, from `var(role)` (`git var GIT_<role>_IDENT`).

    A fresh machine (or CI) may have no user.email; git would then refuse to commit, so
    statedump signs as itself rather than failing the user's write. git itself is asked,
    since only it knows every config file and variable.
    """
    env: dict[str, str] = {}
    signers: dict[str, str] = {}
    for role in ROLES:
        done = var(role)
        if done.returncode == 0:
            signers[role] = done.stdout.decode("utf-8", errors="replace").strip().rsplit(" ", 2)[0]  # without the date
            continue
        name = env[f"GIT_{role}_NAME"] = os.environ.get(f"GIT_{role}_NAME") or FALLBACK_NAME
        email = env[f"GIT_{role}_EMAIL"] = os.environ.get(f"GIT_{role}_EMAIL") or FALLBACK_EMAIL
        signers[role] = f"{name} <{email}>"
    return Identity(env, signers["AUTHOR"], signers["COMMITTER"])


def git_date(when: datetime | None) -> str:
    """A date as git is given it (`<epoch> <offset>`): `when` in UTC, or now in the local zone
    (what git takes when it is given none)."""
    if when is not None:
        return f"{int(when.timestamp())} +0000"
    return f"{int(time.time())} {time.strftime('%z') or '+0000'}"
