"""Finding the store and statedump's own folder in it from inside an agent's hook, cheaply.

A hook runs before every shell command an agent runs, so it must not pay for the store's
machinery (git, pydantic) just to learn where the store is. `find_root` follows the same rule
as `Store.find` (`--store`, else `$STATEDUMP_STORE`, else the git work tree around the
session's working directory that has `sessions/`) with nothing but the file system; a test
holds the two to the same answers.
"""

from __future__ import annotations

import os
from pathlib import Path

SESSIONS = "sessions"
"""The store's sessions folder (`core.layout.SESSIONS`, repeated: importing the layout costs more than the guard's budget allows)."""
ENV_STORE = "STATEDUMP_STORE"
"""`core.store.store.ENV_STORE`."""


def find_root(store: str | Path | None, cwd: str | Path | None) -> Path | None:
    """The store's top folder, or None when there is no store (a hook then does nothing)."""
    chosen = store or os.environ.get(ENV_STORE)
    if chosen:
        root = Path(chosen).expanduser().resolve()
        return root if (root / SESSIONS).is_dir() else None
    here = Path(cwd or Path.cwd()).expanduser().resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder if (folder / SESSIONS).is_dir() else None
    return None


def state_dir(root: Path) -> Path:
    """`.git/statedump/`: the caches, the guard file, the hook log and the capture queue."""
    return root / ".git" / "statedump"


def fallback_dir() -> Path:
    """Where a hook that found no store logs its failures: `$XDG_STATE_HOME/statedump`."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "statedump"
