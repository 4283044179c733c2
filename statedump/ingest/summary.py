"""placeholder"""

from __future__ import annotations
from datetime import datetime
from statedump.ingest.plan import ImportPlan


def read_summary(text: str, plan: ImportPlan, source: str | None = None, base: datetime | None = None) -> None:
    pass
