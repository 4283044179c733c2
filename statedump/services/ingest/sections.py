"""Which kind of record a summary's section holds, by its name, and the summary itself
without the preamble and wrappers an agent's harness puts around it."""

from __future__ import annotations

import re

# (pattern on the lower-cased section name, mode). First match wins.
_MODES: list[tuple[str, str]] = [
    (r"compatib|backend matrix|support matrix", "compat"),
    (r"benchmark|performance|throughput|results", "benchmark"),
    (r"software stack|^stack$|versions|^environment$", "component"),
    (r"deployment command|^commands?$|how to run|commands? to run", "command"),
    (r"relevant files|files and code|^files|key files|directories", "file"),
    (r"reference|^links$|^sources$", "reference"),
    (r"primary request|^goals?\b|objective|^intent|^task$|^the task$|user objective", "goal"),
    (r"instruction|requirement|constraint|all user messages|user preferences|user messages", "instruction"),
    (r"decision", "decision"),
    (r"blocked|blocker", "task:blocked"),
    (r"current work|in progress|^active|current state|ongoing", "task:in-progress"),
    (r"next|pending|remain|to ?do|open tasks|follow.?up", "task:todo"),
    (r"accomplished|completed|^done|progress|what we did|work done", "task:done"),
    (
        r"discover|finding|concept|errors? and fix|problem solving|important context|^context|learn|insight|critical data|observations",
        "discovery",
    ),
]
_PREAMBLE_END = ("Summary:\n", "The conversation is summarized below:\n")
_CODEX_PREFIX = "use the information in this summary to assist with your own analysis:"


def mode_of(name: str) -> str | None:
    """Which record kind a section of this name holds, or None when it is not known."""
    key = " ".join(name.lower().replace("*", "").strip(" :#").split())
    key = re.sub(r"^\d+[.)]\s*", "", key)
    for pattern, mode in _MODES:
        if re.search(pattern, key):
            return mode
    return None


def clean(text: str) -> str:
    """The summary itself: harness preambles, `<analysis>` blocks and wrappers taken off."""
    head = text[:2000]
    for marker in _PREAMBLE_END:
        if marker in head and "continued from a previous conversation" in head:
            text = text[text.index(marker) + len(marker) :]
            break
    if _CODEX_PREFIX in text[:1500]:
        text = text[text.index(_CODEX_PREFIX) + len(_CODEX_PREFIX) :]
    text = re.sub(r"<analysis>.*?</analysis>", "", text, flags=re.S)
    text = re.sub(r"</?summary>", "", text)
    cut = re.search(r"^Please continue the conversation from where we left", text, flags=re.M)
    if cut:
        text = text[: cut.start()]
    return text.strip("\n") + "\n"
