"""The current time, which tests and golden files can fix with STATEDUMP_NOW."""

from __future__ import annotations

import os
from datetime import UTC, datetime

ENV_NOW = "STATEDUMP_NOW"


def fixed() -> datetime | None:
    """The time set in STATEDUMP_NOW (ISO 8601), if any."""
    value = os.environ.get(ENV_NOW)
    if not value:
        return None
    when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def now() -> datetime:
    """Now, to the second, in UTC (or the fixed time)."""
    return fixed() or datetime.now(UTC).replace(microsecond=0)
