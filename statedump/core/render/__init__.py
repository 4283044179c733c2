"""Everything statedump shows: the state document, why, history and the handoff report as
Markdown or for a terminal, the one JSON encoder (`json`), the one number format (`numbers`).
Services hand over data; the faces call these to print it.

The names below are loaded on first use, so that `statedump.core.render.markup` (text
escaping, used by every command that prints record text) comes without the models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from statedump.core.render.markdown import SECTIONS, SPINE, next_steps, render_markdown

__all__ = ["SECTIONS", "SPINE", "next_steps", "render_markdown"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from statedump.core.render import markdown

        return getattr(markdown, name)
    raise AttributeError(f"module 'statedump.core.render' has no attribute {name!r}")
