"""The store as the UI's worker threads read it: one call at a time."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar

from statedump.core.store.store import Store

P = ParamSpec("P")
T = TypeVar("T")


class Reader:
    """A store plus a gate. GitPython keeps long-lived git processes per repository
    that must not serve two threads at once, so every library call that reads the
    store from a worker goes through `__call__`."""

    def __init__(self, store: Store):
        self.store = store
        self._gate = threading.Lock()

    def __call__(self, fn: Callable[Concatenate[Store, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`fn(store, *args, **kwargs)`, alone."""
        with self._gate:
            return fn(self.store, *args, **kwargs)

    def load(self, fn: Callable[Concatenate[Store, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`fn(store, *args, **kwargs)`, alone, for a call that builds a large result the UI
        keeps (a session's state: some million objects for 10,000 records).

        Python's cyclic collector would walk those objects again and again: while they are
        made (a third of the time of reading a big session) and at every full collection
        after (a tenth of a second each, while the UI lays out). So collection is paused
        during the call and what exists afterwards is frozen; `release` undoes that."""
        paused = gc.isenabled()
        gc.disable()
        try:
            result = self(fn, *args, **kwargs)
        finally:
            if paused:
                gc.enable()
        gc.freeze()
        return result

    @staticmethod
    def release() -> None:
        """Let the collector see what `load` froze again (when a screen that loaded it closes)."""
        gc.unfreeze()
