"""statedump: the state of long engineering sessions, as records versioned in git.

The public API is small: open a store, read a session, render it.

    from statedump import Store, render_markdown
    store = Store.find("path/to/store")
    print(render_markdown(store.load(store.pick_session(None))))
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from statedump.errors import StatedumpError
    from statedump.models.state import SessionState
    from statedump.render import render_markdown
    from statedump.store import Store

__all__ = ["SessionState", "StatedumpError", "Store", "render_markdown"]
__version__ = "0.1.0"

_LAZY = {
    "StatedumpError": "statedump.errors",
    "SessionState": "statedump.models.state",
    "render_markdown": "statedump.render",
    "Store": "statedump.store",
}


def __getattr__(name: str) -> Any:
    # The package is imported by every command; loading the API lazily keeps
    # `statedump --help` from paying for pydantic, YAML and git.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(name)
