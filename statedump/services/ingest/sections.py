"""Which kind of record a summary's section holds, by its name, and the summary itself
without the preamble and wrappers an agent's harness puts around it."""

from __future__ import annotations

import re
import textwrap

# (pattern on the lower-cased section name, mode). Words are matched whole (`reference` must not
# match inside "preferences"); the first match wins, so the more particular names come first.
_MODES: list[tuple[str, str]] = [
    (r"\b(compatib\w*|backend matrix|support matrix|compat)\b", "compat"),
    (r"\b(benchmarks?|performance|throughput|results|key metrics|metrics)\b", "benchmark"),
    (r"\b(software stack|stack|versions|environment|dependencies|installed)\b", "component"),
    (r"\b(commands?|how to run|how to test|re-?verify|verification|run tests)\b", "command"),
    (r"\b(relevant files|files and code|files?|key files|directories|artifacts)\b", "file"),
    (r"\b(references?|links|sources|documentation to read|further reading)\b", "reference"),
    (r"\b(primary request|goals?|objectives?|intent|current focus|focus|mission|user objective|what we were trying)\b", "goal"),
    (r"^(the )?task$", "goal"),
    (r"\b(important context|critical context)\b", "discovery"),
    (r"\b(errors? (and|&) fix(es)?|fixes|bugs? fixed|issues? (fixed|resolved)|resolved issues)\b", "discovery:resolved"),
    (r"\b(notes?|errors?|errors? (and|&) fix(es)?|issues?|known issues|gotchas|bugs? fixed|problems?|problem solving)\b", "discovery"),
    (r"\b(risks?|concerns?|open questions?|caveats?|unknowns?|limitations?)\b", "discovery:risk"),
    (r"\b(instructions?|requirements?|constraints?|preferences?|all user messages|user messages|rules|guardrails)\b", "instruction"),
    (
        r"\b(decisions?|decided|design choices?|alternative approaches|alternatives|options|approach|configuration|config|settings|working setup)\b",
        "decision",
    ),
    (r"\b(blocked|blockers?)\b", "task:blocked"),
    (r"\b(current work|in progress|active|current state|ongoing|wip|status)\b", "task:in-progress"),
    (r"\b(next|pending|remaining|remains?|to ?do|todos?|open tasks|follow.?ups?|immediate)\b", "task:todo"),
    (r"\b(future|later|nice to have|ideas?|someday|optional|recommend\w*|stretch goals?)\b", "task:proposed"),
    (
        r"\b(accomplished|completed|done|progress|what we did|what was done|work done|what changed|changes made|actions taken)\b",
        "task:done",
    ),
    (
        r"\b(discover\w*|findings?|concepts?|context|learn\w*|insights?|critical data|observations?|root cause|what.?s working)\b",
        "discovery",
    ),
]
_CONTINUED = "continued from a previous conversation"
_CODEX_PREFIX = "use the information in this summary to assist with your own analysis:"


def _key(name: str) -> str:
    key = " ".join(name.lower().replace("*", "").replace("_", " ").strip(" :#").split())
    key = re.sub(r"^[^\w(]+", "", key)  # a leading emoji or bullet says nothing about the kind
    return re.sub(r"^(\d+[.)]|[a-z]\))\s*", "", key)


def mode_of(name: str) -> str | None:
    """Which record kind a section of this name holds, or None when it is not known."""
    key = _key(name)
    for pattern, mode in _MODES:
        if re.search(pattern, key):
            return mode
    return None


def dedent(text: str) -> str:
    """Text pasted from a terminal (every line indented, the first sometimes not) brought back to
    column 0, so that its lists and headings are Markdown again."""
    lines = text.split("\n")
    rest = [line for line in lines[1:] if line.strip()]
    if not rest:
        return text.lstrip(" ")
    indent = min(len(line) - len(line.lstrip(" ")) for line in rest)
    first = lines[0]
    if indent and (
        not first.strip() or len(first) - len(first.lstrip(" ")) >= indent or first.lstrip().startswith(("This session", "Summary", "#"))
    ):
        return "\n".join([first.lstrip(" "), *(line[indent:] if line.strip() else "" for line in lines[1:])])
    return textwrap.dedent(text)


def clean(text: str) -> str:
    """The summary itself: harness preambles, `<analysis>` wrappers and closing lines taken off."""
    text = dedent(text.replace("\r\n", "\n").replace("\t", "    "))
    if _CONTINUED in text[:1000]:
        # The harness's first line (up to the first blank line) says only where this came from.
        first = re.search(r"\n\s*\n", text)
        text = text[first.end() :] if first else ""
    if _CODEX_PREFIX in text[:1500]:
        text = text[text.index(_CODEX_PREFIX) + len(_CODEX_PREFIX) :]
    text = re.sub(r"</?(analysis|summary)>", "", text)
    cut = re.search(
        r"^(If you need specific details from before compaction|Please continue the conversation from where we left)", text, flags=re.M
    )
    if cut:
        text = text[: cut.start()]
    return text.strip("\n") + "\n"


_META = {
    "title": "title",
    "session": None,
    "date": "started",
    "created": "started",
    "started": "started",
    "last updated": None,
    "updated": None,
    "last session": None,
    "updated by": "agent",
    "agent": "agent",
    "author": None,
    "user": None,
    "model": "model",
    "hardware": "hardware",
    "gpu": "hardware",
    "project": "repo",
    "repo": "repo",
    "repository": "repo",
    "branch": "branch",
    "cwd": "cwd",
    "resume file": None,
    "tokens used": None,
    "session type": None,
    "os": None,
    "status": None,
    "overall project": None,
    "estimated time to complete": None,
}


def meta_field(label: str) -> str | bool | None:
    """The session fact a `Label: value` line of metadata fills (None: metadata that fills none),
    or False when the label is not metadata."""
    key = " ".join(label.lower().replace("*", "").strip(" :").split())
    return _META.get(key, False)


def front_matter(text: str) -> tuple[dict[str, str], str]:
    """YAML front matter (`---` … `---` at the very top) as flat `key: value` pairs, and the rest.

    Read line by line, not as YAML: a summary's front matter is a few flat keys, and a broken one
    must not stop the import."""
    m = re.match(r"\A\ufeff?---[ \t]*\n(.*?\n)---[ \t]*(?:\n|\Z)", text, re.S)
    if not m:
        return {}, text
    pairs: dict[str, str] = {}
    for line in m.group(1).split("\n"):
        key, sep, value = line.partition(":")
        if sep and key.strip() and not line.startswith((" ", "\t", "-")):
            pairs[key.strip().lower()] = value.strip().strip("\"'")
    return pairs, text[m.end() :]
