"""NVIDIA AIPerf's `profile_export_aiperf.json`: genai-perf's layout with a `loadgen` section,
`error_request_count` and the command line it ran (read by `genai_perf`)."""

from __future__ import annotations

from pathlib import Path

from statedump.services.ingest.genai_perf import read_profile
from statedump.services.ingest.jsonl import Progress
from statedump.services.ingest.plan import ImportPlan


def read(path: Path, progress: Progress | None = None) -> ImportPlan:
    """Read an AIPerf (or genai-perf) profile export into a plan."""
    plan = read_profile(path, "aiperf")
    if progress is not None:
        progress(1, 1)
    return plan
