"""The store as the UI's worker threads read it: one call at a time."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar

from statedump.store import Store

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
