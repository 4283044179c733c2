"""Property tests (Hypothesis): any record round-trips YAML byte for byte; rendering never breaks."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import mdformat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from statedump.core import codec
from statedump.core.render import markup, render_markdown
from statedump.models import (
    KINDS,
    Alternative,
    Enforcement,
    Links,
    Metric,
    RecordBase,
    Session,
    Tradeoff,
)
from statedump.models.state import SessionState

# Any text a user or an agent might write, control characters and YAML-looking words included;
# only lone surrogates are left out, since they cannot be written as UTF-8 at all.
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=60)
LINE = TEXT.map(lambda s: " ".join(s.split()) or "x")
IDS = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?", fullmatch=True).filter(
    lambda s: s not in {"con", "prn", "aux", "nul"} and not s.startswith(("com", "lpt"))
)
WHEN = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC))
FLOATS = st.floats(allow_nan=False, width=64)


def _kind_fields(kind: str) -> dict[str, Any]:
    return {
        "goal": {"criteria": st.lists(TEXT, max_size=3)},
        "instruction": {"quote": TEXT.filter(bool), "standing": st.booleans()},
        "discovery": {"category": st.sampled_from(["finding", "risk", "dead-end"])},
        "compat": {
            "component": LINE,
            "option": LINE,
            "target": LINE,
            "versions": st.dictionaries(LINE, TEXT, max_size=2),
            "symptom": st.none() | TEXT,
        },
        "benchmark": {
            "concurrency": st.none() | st.integers(1, 4096),
            "request_rate": st.none() | FLOATS,
            "metrics": st.lists(st.builds(Metric, name=LINE, value=FLOATS, unit=LINE), max_size=3),
            "environment": st.dictionaries(LINE, TEXT, max_size=3),
            "baseline": st.booleans(),
        },
        "decision": {
            "question": st.none() | TEXT,
            "choice": TEXT.filter(bool),
            "alternatives": st.lists(st.builds(Alternative, option=LINE, why_not=TEXT.filter(bool)), max_size=2),
            "tradeoffs": st.lists(st.builds(Tradeoff, aspect=LINE, before=st.none() | TEXT, after=st.none() | TEXT), max_size=2),
            "enforces": st.lists(st.builds(Enforcement, command=IDS, flag=st.just("--kv-cache-dtype"), value=st.none() | LINE), max_size=2),
        },
        "task": {"priority": st.none() | st.integers(1, 9), "impact": st.none() | TEXT},
        "command": {
            "text": TEXT.filter(bool),
            "env": st.dictionaries(st.from_regex(r"[A-Z_]{1,10}", fullmatch=True), TEXT, max_size=2),
            "last_known_good": st.booleans(),
        },
        "component": {"name": LINE, "version": st.none() | TEXT},
        "file": {"path": LINE},
        "reference": {"url": LINE},
    }[kind]


@st.composite
def records(draw: st.DrawFn, kind: str | None = None) -> RecordBase:
    kind = kind or draw(st.sampled_from(list(KINDS)))
    cls = KINDS[kind]
    fields = {name: draw(strategy) for name, strategy in _kind_fields(kind).items()}
    return cls(
        id=draw(IDS),
        title=draw(LINE),
        status=draw(st.sampled_from(cls.STATUSES)),
        at=draw(st.none() | WHEN),
        source=draw(st.none() | TEXT),
        tags=draw(st.lists(LINE, max_size=2)),
        links=Links(evidence=draw(st.lists(IDS, max_size=2))),
        body=draw(st.none() | TEXT),
        **fields,
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records())
def test_any_record_round_trips_byte_for_byte(record: RecordBase) -> None:
    text = codec.dump_record(record)
    back = codec.load_record(text.encode(), "x.yaml")
    assert back == record
    assert codec.dump_record(back) == text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(records(), max_size=8, unique_by=lambda r: r.id), LINE)
def test_any_session_renders_without_error_and_keeps_text_literal(recs: list[RecordBase], title: str) -> None:
    state = SessionState(Session(id="s", title=title), recs)
    doc = render_markdown(state)
    assert doc.startswith("# ") and doc.endswith("\n")
    assert "\x1b" not in doc
    positions = [doc.index(f"\n## {name}\n") for name in ("Goal", "Instructions", "Discoveries", "Accomplished")]
    assert positions == sorted(positions)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(records(), max_size=6, unique_by=lambda r: r.id).map(lambda rs: [r.model_copy(update={"body": None}) for r in rs]))
def test_plain_text_renders_as_formatter_stable_markdown(recs: list[RecordBase]) -> None:
    # Titles, quotes and fields are plain text: escaped so that formatting changes nothing.
    # (Bodies are the user's own Markdown, which a formatter may legitimately restyle.)
    doc = render_markdown(SessionState(Session(id="s", title="t"), recs))
    assert mdformat.text(doc, extensions={"tables"}) == doc


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(max_size=400)
    | st.lists(
        st.sampled_from(
            [
                "## Goal",
                "## Discoveries",
                "### Decisions",
                "#### x",
                "- **a** — b · `c`",
                "| a | b |",
                "| --- | --- |",
                "```bash",
                "```",
                "> q",
                "1. x",
                "- [x] y",
                "Choice: z",
                "",
                "## Next steps",
                "- Enforces: `--f v` on `c`",
            ]
        ),
        max_size=30,
    ).map("\n".join)
)
def test_any_text_into_the_markdown_importer(text: str) -> None:
    from statedump.core.errors import StatedumpError
    from statedump.services.ingest.markdown import read_markdown_text
    from statedump.services.ingest.plan import ImportPlan

    plan = ImportPlan("markdown", Path("fuzz.md"))
    try:
        read_markdown_text(text, plan)
    except StatedumpError:
        return
    for record in plan.records:
        codec.dump_record(record)  # every record it made is a valid, writable record


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(records(), max_size=8, unique_by=lambda r: r.id).map(lambda rs: [r.model_copy(update={"body": None}) for r in rs]), LINE)
def test_render_import_render_is_stable(recs: list[RecordBase], title: str) -> None:
    from statedump.services.ingest.markdown import read_markdown_text
    from statedump.services.ingest.plan import ImportPlan

    doc = render_markdown(SessionState(Session(id="s", title=title), recs))
    plan = ImportPlan("markdown", Path("state.md"))
    read_markdown_text(doc, plan)
    session = Session(id="s", **{k: v for k, v in plan.session.items() if k != "id"})
    assert render_markdown(SessionState(session, plan.records)) == doc


ENV_TEXT = st.text(
    st.characters(exclude_categories=("Cs", "Cc")) | st.sampled_from(["\n", "\t", "'", '"', " ", "$", "`", "\\"]), max_size=30
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.from_regex(r"[A-Z_][A-Z0-9_]{0,8}", fullmatch=True), ENV_TEXT, min_size=1, max_size=3))
def test_environment_blocks_survive_any_value(env: dict[str, str]) -> None:
    # Values are shell-quoted in the document: newlines, quotes and spaces come back as they were.
    from statedump.models import Command
    from statedump.services.ingest.doc_fields import env_pairs

    cmd = Command(id="c", title="t", text="run", env=env)
    doc = render_markdown(SessionState(Session(id="s", title="t"), [cmd]))
    fences = [t.content for t in MarkdownIt().parse(doc) if t.type == "fence"]
    assert fences[-1] == "run\n"
    assert env_pairs(fences[-2]) == env


@given(st.from_regex(markup._PLAIN_URL, fullmatch=True), st.text(min_size=1, max_size=20))
def test_plain_urls_skip_normalization_only_where_it_changes_nothing(url: str, label: str) -> None:
    # The fast path in markup.link must give what CommonMark's normalization would.
    from markdown_it.common.normalize_url import normalizeLink, validateLink

    assert normalizeLink(url) == url and validateLink(url)
    assert markup.link(label, url) == f"[{markup.inline(label)}]({url})"


_CONFUSABLE = {"k": "\u212a", "K": "\u212a", "i": "\u0131", "I": "\u0130", "s": "\u017f", "S": "\u017f"}


@st.composite
def _secret_texts(draw: st.DrawFn) -> str:
    """A line of the secrets corpus (or its secret alone), with random case and the letters case-blind patterns read as ASCII ones."""
    from helpers import SECRETS

    out = []
    # One shape at a time: a second shape's clue would hide a missing one.
    for _, text, secret in [draw(st.sampled_from(SECRETS))]:
        # The secret in its line, or alone (a line may hold a second clue that hides a missing one).
        chars = list(draw(st.sampled_from([text.format(s=secret), secret])))
        for i in draw(st.lists(st.integers(0, len(chars) - 1), max_size=8)):
            c = chars[i]
            chars[i] = draw(st.sampled_from([c.swapcase(), _CONFUSABLE.get(c, c), c]))
        out.append("".join(chars))
    return draw(st.sampled_from([" ", "\n", " and "])).join(out)


@given(_secret_texts())
def test_the_quick_check_never_skips_text_a_pattern_would_change(text: str) -> None:
    # redact_text skips the patterns when a cheap check finds no clue; that must never hide a match.
    from statedump.core import redact

    full = text
    for pattern, repl in redact._PATTERNS:
        full = pattern.sub(repl, full)
    assert redact.redact_text(text) == full
