"""Compat cells from launches: a launch that works after one that failed, differing from it in
one flag, makes two cells (that option fails, this one works) for the session's GPU. The GPU is
the first one the session names (the person's words, a command's output); cells made before it
is named get it at the end (`retarget`), and until then say "this session's hardware", guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from statedump.models import Command, Compat, Links
from statedump.services.flags import parse_command
from statedump.services.ingest.launch import Launch
from statedump.services.ingest.plan import ImportPlan, stable_id

_GPU_NAMES = {
    "G": r"B[123]00",
    "B": r"[123]00",
    "H": r"[12]00|800|20",
    "A": r"100|800|10G?",
    "L": r"40S?|4",
    "R": r"TX PRO 6000(?: Blackwell)?|TX [345]090",
    "M": r"I3[02]5X|I300X|I355X",
    "S": r"M1[02]0|M90",
}
"""GPU names as sessions write them ("8x B200", "NVIDIA H100 80GB HBM3", "RTX PRO 6000 Blackwell"),
by their first letter: GB200, B200, H100, A10G, L40S, RTX 5090, MI300X, SM90 ..."""
_GPU = re.compile(
    r"([" + "".join(_GPU_NAMES) + r"](?<!\w[" + "".join(_GPU_NAMES) + r"])(?:"
    + "|".join(f"(?<={first})(?:{rest})" for first, rest in _GPU_NAMES.items())
    + r"))\b"
)  # fmt: skip
"""A name that starts a word and ends one. The pattern starts with the set of first letters,
so that the scan skips every other character fast: written as one alternation after `\\b` it
was tried at every character, a tenth of a resumed import's time."""
_SOME_HARDWARE = "this session's hardware"


def gpu_named(text: str) -> str | None:
    """The first GPU a text names ("8x B200", "NVIDIA H100 80GB HBM3"), or None."""
    found = _GPU.search(text)
    return " ".join(found.group(1).split()) if found else None


@dataclass
class LaunchSeen:
    """A server launch the session made, and whether it failed."""

    record: Command
    launch: Launch
    failed: bool
    _flags: dict[str, list[str | None]] | None = None

    @property
    def flags(self) -> dict[str, list[str | None]]:
        """The launch's flags, read when a compat cell needs them (the shell reading is slow)."""
        if self._flags is None:
            self._flags = parse_command(self.record.text).flags
        return self._flags


def compat_cells(plan: ImportPlan, launches: list[LaunchSeen], hardware: str | None, agent: str) -> None:
    """The cells the last launch (it works) makes with the failed ones just before it."""
    works = launches[-1]
    for earlier in reversed(launches[:-1]):
        if not earlier.failed:
            return
        changed = {k for k in set(earlier.flags) | set(works.flags) if earlier.flags.get(k) != works.flags.get(k)}
        if len(changed) != 1:
            continue
        flag = changed.pop()
        component = works.launch.label
        target = hardware or _SOME_HARDWARE
        for item, status in ((earlier, "fails"), (works, "works")):
            value = item.flags.get(flag)
            option = f"{flag} {value[-1]}" if value and value[-1] else (flag if value else f"{flag} (default)")
            plan.add(
                Compat(
                    id=stable_id("compat", option, key=f"compat:{component}:{option}:{target}"),
                    title=f"{component} {option} on {target}: {status}"[:300],
                    status=status,
                    component=component,
                    option=option,
                    target=target,
                    repro=item.record.text,
                    source=item.record.source,
                    tags=[agent],
                    links=Links(evidence=[item.record.id]),
                ),
                guessed={"target"} if hardware is None else None,  # (until `retarget` learns the GPU)
            )
        return


def retarget(plan: ImportPlan, hardware: str) -> None:
    """Cells made before the session named its GPU get it as their target."""
    for record in list(plan.records):
        if isinstance(record, Compat) and record.target == _SOME_HARDWARE:
            plan.remove({record.id})
            key = f"compat:{record.component}:{record.option}:{hardware}"
            title = f"{record.component} {record.option} on {hardware}: {record.status}"[:300]
            plan.add(record.model_copy(update={"id": stable_id("compat", record.option, key=key), "target": hardware, "title": title}))
