"""Widgets, one per file, each with its stylesheet beside it (`<name>.tcss`)."""

from __future__ import annotations

from pathlib import Path


def stylesheet(module_file: str) -> str:
    """The `.tcss` file beside a widget's module, as its DEFAULT_CSS."""
    return Path(module_file).with_suffix(".tcss").read_text(encoding="utf-8")
