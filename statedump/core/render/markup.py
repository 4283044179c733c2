"""Markdown building blocks: escaping, code spans, tables, lists.

The escaping follows CommonMark so that record text never turns into markup, and
is written so that a CommonMark formatter (mdformat) leaves the output as it is.
"""

from __future__ import annotations

import functools
import html.entities
import re
import string
import unicodedata

from statedump.core.safetext import visible

__all__ = ["Md", "bullets", "cell", "code", "fenced", "indent", "inline", "line", "link", "paragraphs", "table", "visible"]


@functools.cache
def _entity() -> re.Pattern[str]:
    # Every HTML5 entity name in one pattern takes 15 ms to compile; only text with `&` needs it.
    names = sorted({n.rstrip(";") for n in html.entities.html5}, key=len, reverse=True)
    return re.compile("&(?:#[0-9]{1,7}|#[Xx][0-9A-Fa-f]{1,6}|" + "|".join(names) + ");")


def _cells(text: str) -> int:
    """Terminal columns of a cell's text, counted as wcwidth (and table formatters) count them."""
    if text.isascii() and text.isprintable():
        return len(text)
    from wcwidth import wcswidth

    return int(wcswidth(text))


_SPECIAL = re.compile(r"[\\*_\[\]<`&]|^(?:[#>+=-]|\d{1,9}[.)]|~~~)")
_INLINE_SPECIAL = re.compile(r"[\\*_\[\]<`&]")


def _ws(ch: str | None) -> bool:
    # CommonMark's Unicode whitespace: the Zs category and ASCII whitespace.
    return ch is not None and (ch in string.whitespace or unicodedata.category(ch) == "Zs")


def _flanking(ch: str | None) -> bool:
    # Whitespace, punctuation (P categories and ASCII punctuation), or the edge of the text:
    # where emphasis can open or close.
    return ch is None or _ws(ch) or ch in string.punctuation or unicodedata.category(ch).startswith("P")


def _escape_star(prev: str | None, nxt: str | None) -> bool:
    return not (_ws(prev) and _ws(nxt))


def _escape_underscore(prev: str | None, nxt: str | None) -> bool:
    inside_word = not _flanking(prev) and not _flanking(nxt)
    return not (inside_word or (_ws(prev) and _ws(nxt)))


def _brackets_to_escape(text: str, after: str | None) -> set[int]:
    # A closed [..] pair with no brackets inside and not followed by ':' or '(' reads
    # as plain text; every other bracket could start a link and is escaped.
    escape: set[int] = set()
    opened: int | None = None
    for i, ch in enumerate(text):
        if ch == "[":
            if opened is not None:
                escape.add(opened)
            opened = i
        elif ch == "]":
            if opened is None:
                escape.add(i)
            else:
                nxt = text[i + 1] if i + 1 < len(text) else (after or "")
                if nxt in (":", "("):
                    escape.update((opened, i))
                opened = None
    if opened is not None:
        escape.add(opened)
    return escape


def _escape_line_start(text: str, after: str | None) -> str:
    """Escape what would open a block at the start of a line (heading, quote, list, rule)."""
    probe = text + (after or "")
    if re.match(r"#{1,6}( |\t|$)", probe) or probe.startswith(">") or re.match(r"[-+]( |\t|$)", probe):
        return "\\" + text
    if m := re.match(r"[0-9]+([.)])( |\t|$)", probe):
        return text.replace(m.group(1), "\\" + m.group(1), 1)
    if after is None:
        bare = text.replace(" ", "").replace("\t", "")
        if bare and (set(bare) == {"-"} or set(bare) == {"="}):
            return text.replace(bare[0], "\\" + bare[0], 1)
    return text


def inline(text: str, start: bool = False, before: str | None = None, after: str | None = None) -> str:
    """Plain text made safe for one line of Markdown: nothing in it becomes markup.

    `start` says the text begins a line, where `-`, `#`, `>` or `1.` would open a block.
    `before` and `after` are the characters the text will sit between (None for the edge
    of a paragraph, heading, cell or emphasis): whether `*`, `_` or `<` can open markup
    depends on its neighbours, and escaping exactly when needed keeps the output stable
    under CommonMark formatters.
    """
    text = " ".join(visible(text).split())
    if not _SPECIAL.search(text) or (not start and not _INLINE_SPECIAL.search(text)):
        return text
    text = text.replace("\\", "\\\\")
    brackets = _brackets_to_escape(text, after)
    out = []
    for i, ch in enumerate(text):
        prev = text[i - 1] if i else before
        nxt = text[i + 1] if i + 1 < len(text) else after
        if ch == "*" and _escape_star(prev, nxt):
            out.append("\\*")
        elif ch == "_" and _escape_underscore(prev, nxt):
            out.append("\\_")
        elif ch in "[]" and i in brackets:
            out.append("\\" + ch)
        elif ch == "<" and nxt != " ":
            out.append("\\<")
        elif ch == "`":
            out.append("\\`")
        else:
            out.append(ch)
    escaped = "".join(out)
    if "&" in escaped:
        escaped = _entity().sub(lambda m: "\\" + m.group(0), escaped)
    if start:
        escaped = _escape_line_start(escaped, after)
    return escaped


def code(text: str) -> str:
    """A code span that holds `text` literally, whatever backticks it contains."""
    text = " ".join(visible(text).split())
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    if longest:
        # A span holding backticks is fenced by a longer run and padded, as CommonMark reads it.
        fence = "`" * (longest + 1)
        return f"{fence} {text} {fence}"
    return f"`{text}`"


def fenced(text: str, lang: str = "") -> str:
    """A fenced code block holding `text` verbatim."""
    text = visible(text).rstrip("\n")
    longest = max((len(m) for m in re.findall(r"^\s*(`{3,})", text, re.M)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


class Md(str):
    """Text that is already Markdown (a code span, emphasis, a link): `line()` keeps it as it is."""

    __slots__ = ()


def line(*parts: str, start: bool = False) -> str:
    """One line from plain text and `Md` pieces.

    A parser reads the plain text between two pieces of markup as one run, so consecutive
    plain pieces are escaped together: a `[` in a title and a `]` in a source pair up in
    the run exactly as a parser will pair them.
    """
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        text = "".join(run)
        run.clear()
        if not text:
            return
        lead = " " if text[0].isspace() else ""
        trail = " " if text[-1].isspace() and text.strip() else ""
        core = text.strip()
        first = not out
        escaped = (
            inline(core, start=start and first and not lead, before=" " if lead else None, after=" " if trail else None) if core else ""
        )
        out.append(lead + escaped + trail if core else " ")

    for part in parts:
        if isinstance(part, Md):
            flush()
            out.append(str(part))
        else:
            run.append(part)
    flush()
    return "".join(out)


_PLAIN_URL = re.compile(r"https?://[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::[0-9]{1,5})?(?:/[A-Za-z0-9._~/-]*)?")
"""A web URL made only of characters CommonMark's link normalization keeps as they are."""


def link(label: str, url: str) -> str:
    """A Markdown link, its target normalized the way CommonMark parsers read it back.

    A URL a parser would refuse as a link (e.g. `javascript:`) is shown as code instead.
    """
    url = " ".join(visible(url).split())
    if _PLAIN_URL.fullmatch(url):
        # Nothing a parser would change: skip importing markdown_it (30 ms of a short command).
        return f"[{inline(label)}]({url})"
    from markdown_it.common.normalize_url import normalizeLink, validateLink

    href = normalizeLink(url)
    if not url or not validateLink(href):
        return f"{inline(label, start=True, after=' ')} ({code(url or '-')})"
    target = href if re.fullmatch(r"[^\s()<>\x00-\x1f]+", href) else f"<{href}>"
    return f"[{inline(label)}]({target})"


def cell(text: str) -> str:
    """Text for a table cell: one line, pipes escaped."""
    return inline(text).replace("|", "\\|")


def table(header: list[str], rows: list[list[str]]) -> str:
    """A GitHub-style table, columns padded so the source lines up as formatters write it."""
    # Pad by terminal cells, not code points: a CJK character fills two columns.
    cell_len = _cells
    widths = [max(3, cell_len(h), *(cell_len(r[i]) for r in rows)) for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c + " " * (w - cell_len(c)) for c, w in zip(cells, widths, strict=True)) + " |"

    return "\n".join([line(header), "| " + " | ".join("-" * w for w in widths) + " |", *(line(r) for r in rows)])


def indent(text: str, by: int = 2) -> str:
    """Every non-empty line indented, to nest a block under a list item."""
    pad = " " * by
    return "\n".join(pad + line if line.strip() else "" for line in text.split("\n"))


def bullets(items: list[str]) -> str:
    """A list; loose (blank line between items) when any item has more than one line."""
    loose = any("\n" in item for item in items)
    rendered = ["- " + indent(item)[2:] if "\n" in item else "- " + item for item in items]
    return ("\n\n" if loose else "\n").join(rendered)


_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r" {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_LIVE = re.compile(r"(?<!\\)((?:\\\\)*)(\[|<(?=[A-Za-z/!?]))")
"""`[` (a link, an image, a reference definition) and `<` before what opens an HTML tag, a
comment or an autolink, not already escaped by an odd run of backslashes."""


def _inert(line: str) -> str:
    # Outside code spans only: inside them a backslash would show.
    out, at = [], 0
    for m in _CODE_SPAN.finditer(line):
        out += [_LIVE.sub(r"\1\\\2", line[at : m.start()]), m.group(0)]
        at = m.end()
    out.append(_LIVE.sub(r"\1\\\2", line[at:]))
    return "".join(out)


def paragraphs(text: str) -> str:
    """A record body as Markdown blocks: trailing spaces and extra blank lines trimmed.

    Its emphasis, lists and code stay Markdown, but nothing in it is live: HTML, images and
    links are escaped to their text (a body imported from an agent's summary is someone
    else's Markdown, and an image or a link there would load or lead anywhere). Code blocks,
    fenced or indented, and code spans are kept as they are."""
    lines = [line.rstrip() for line in visible(text).strip("\n").split("\n")]
    fence: str | None = None
    prose = False  # the line before was paragraph text (an indented line then continues it)
    in_list = False  # an indented line belongs to a list item, not to a code block
    for i, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence) and not line.strip(" `~"):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        indented = line.startswith(("    ", "\t"))
        if indented and not prose and not in_list:
            continue  # an indented code block
        if line.strip() and not indented:
            in_list = _LIST_ITEM.match(line) is not None
        prose = bool(line.strip())
        lines[i] = _inert(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
