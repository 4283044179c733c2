"""Pure data: the session and the eleven record kinds. No I/O happens in this package.

`ids` (the id rules and kind names) is plain Python; everything else is pydantic. The names
below are loaded on first use, so that a command which only needs the id rules (`statedump
log`) does not pay for pydantic.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from statedump.models.base import ID_MAX, RELATIONS, Links, Model, RecordBase, RecordId, id_problem
    from statedump.models.kinds import (
        KINDS,
        Alternative,
        Benchmark,
        Command,
        Compat,
        Component,
        Decision,
        Discovery,
        Enforcement,
        File,
        Goal,
        Instruction,
        Metric,
        Record,
        Reference,
        Task,
        Tradeoff,
        field_order,
    )
    from statedump.models.session import Checkpoint, Session

__all__ = [
    "ID_MAX",
    "KINDS",
    "RELATIONS",
    "Alternative",
    "Benchmark",
    "Checkpoint",
    "Command",
    "Compat",
    "Component",
    "Decision",
    "Discovery",
    "Enforcement",
    "File",
    "Goal",
    "Instruction",
    "Links",
    "Metric",
    "Model",
    "Record",
    "RecordBase",
    "RecordId",
    "Reference",
    "Session",
    "Task",
    "Tradeoff",
    "field_order",
    "id_problem",
]

_HOME = {name: "base" for name in ("ID_MAX", "RELATIONS", "Links", "Model", "RecordBase", "RecordId", "id_problem")}
_HOME |= {name: "session" for name in ("Checkpoint", "Session")}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'statedump.models' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"statedump.models.{_HOME.get(name, 'kinds')}"), name)
