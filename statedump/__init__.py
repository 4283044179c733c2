"""statedump: the state of long engineering sessions, as records versioned in git.

The public API is small: open a store, read a session, render it.

    from statedump import Store, render_markdown
    store = Store.find("path/to/store")
    print(render_markdown(store.load(store.pick_session(None))))
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from statedump.core.errors import StatedumpError
    from statedump.core.render import render_markdown
    from statedump.core.store.store import Store
    from statedump.models.state import SessionState

__all__ = ["SessionState", "StatedumpError", "Store", "render_markdown"]
__version__ = "0.1.0"

_LAZY = {
    "StatedumpError": "statedump.core.errors",
    "SessionState": "statedump.models.state",
    "render_markdown": "statedump.core.render",
    "Store": "statedump.core.store.store",
}


def __getattr__(name: str) -> Any:
    # The package is imported by every command; loading the API lazily keeps
    # `statedump --help` from paying for pydantic, YAML and git.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(name)
