"""Markdown read as a tree of markdown-it tokens, with the helpers both Markdown readers use:
plain text of an inline run, the source lines of a block, sections by heading.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.tree import SyntaxTreeNode


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """CommonMark plus GitHub tables: what statedump writes and what agents write."""
    # Imported here: a transcript with no state dump in it never needs a Markdown parser.
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


@lru_cache(maxsize=2)
def parse(text: str) -> SyntaxTreeNode:
    """The document as a tree (root node). Callers only read the tree, so the last ones are
    kept: a state dump is parsed to tell what it is, then again to read it (a tenth of a
    resumed import, which reads every dump of the session again)."""
    from markdown_it.tree import SyntaxTreeNode

    return SyntaxTreeNode(parser().parse(text))


def inline_of(node: SyntaxTreeNode) -> SyntaxTreeNode | None:
    """The inline child of a paragraph, heading or table cell."""
    if node.type == "inline":
        return node
    for child in node.children:
        if child.type == "inline":
            return child
    return None


def plain(node: SyntaxTreeNode | None, ticks: bool = False) -> str:
    """The text of an inline run with the markup taken away (escapes resolved).

    With `ticks`, code spans keep their backticks (for free text where they mean
    something); statedump's own escaped text has none.
    """
    if node is None:
        return ""
    if node.type in ("paragraph", "heading", "th", "td"):
        node = inline_of(node)
        if node is None:
            return ""
    out: list[str] = []
    for child in node.children:
        if child.type in ("text", "html_inline"):
            out.append(child.content)
        elif child.type == "code_inline":
            out.append(f"`{child.content}`" if ticks else child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append("\n")
        elif child.type in ("strong", "em") and child.markup in ("_", "__"):
            # `__getitem__`, `_validate_pack`: underscores in free text are nearly always a name's own.
            out.append(f"{child.markup}{plain(child, ticks)}{child.markup}")
        elif child.type == "image":
            out.append(plain(child, ticks))
        else:
            out.append(plain(child, ticks))
    return "".join(out)


Segment = tuple[str, str]
"""(`text` | `code` | `strong` | `em` | `link`, plain text); links carry their href apart."""


def segments(node: SyntaxTreeNode | None) -> list[Segment]:
    """The top-level pieces of an inline run, neighbouring text merged."""
    if node is None:
        return []
    if node.type != "inline":
        node = inline_of(node)
        if node is None:
            return []
    out: list[Segment] = []
    for child in node.children:
        if child.type in ("text", "html_inline"):
            kind, value = "text", child.content
        elif child.type in ("softbreak", "hardbreak"):
            kind, value = "text", "\n"
        elif child.type == "code_inline":
            kind, value = "code", child.content
        elif child.type in ("strong", "em", "link"):
            kind, value = child.type, plain(child)
        else:
            kind, value = "text", plain(child)
        if kind == "text" and out and out[-1][0] == "text":
            out[-1] = ("text", out[-1][1] + value)
        elif kind != "text" or value:
            out.append((kind, value))
    return out


def link_href(node: SyntaxTreeNode | None) -> str | None:
    """The target of the first link in an inline run, as markdown-it normalised it."""
    if node is None:
        return None
    if node.type != "inline":
        node = inline_of(node)
    for child in node.children if node else []:
        if child.type == "link":
            href = child.attrs.get("href")
            return str(href) if href is not None else None
    return None


def raw_link_target(node: SyntaxTreeNode | None) -> str | None:
    """The first link's destination exactly as written in the source (markdown-it percent-encodes
    what it hands out; a round trip needs the original)."""
    inline = node if node is None or node.type == "inline" else inline_of(node)
    href = link_href(inline)
    if inline is None or href is None:
        return None
    src = inline.content
    i = 0
    while (i := src.find("](", i)) >= 0:
        if i == 0 or src[i - 1] != "\\":
            rest = src[i + 2 :]
            target = rest[1 : rest.find(">")] if rest.startswith("<") else rest[: rest.find(")")]
            if parser().normalizeLink(target) == href:
                return target
            if parser().normalizeLink(target.replace("%3E", ">")) == href:
                return target.replace("%3E", ">")
            break
        i += 2
    return parser().normalizeLinkText(href)


def lines_of(source_lines: list[str], nodes: list[SyntaxTreeNode], dedent: int | None = 0) -> str:
    """The source text of a run of blocks, blank lines at both ends dropped.

    `dedent` columns of list indentation are taken off each line; None takes off whatever
    indentation all lines share (blocks nested in a list item at any depth).
    """
    spans = [n.map for n in nodes if n.map is not None]
    if not spans:
        return ""
    start, end = min(s[0] for s in spans), max(s[1] for s in spans)
    chunk = source_lines[start:end]
    if dedent is None:
        out = textwrap.dedent("\n".join(chunk)).split("\n")
    else:
        out = [line[dedent:] if line[:dedent].strip() == "" or line.startswith("- ") else line for line in chunk]
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out)


_MARKER = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])(\s+|$)")


def item_text(source_lines: list[str], item: SyntaxTreeNode) -> str:
    """A list item's own text, its marker taken off and its lines brought back to column 0."""
    if item.map is None:
        return ""
    start, end = item.map
    first = source_lines[start]
    m = _MARKER.match(first)
    col = len(m.group(0)) if m else 0
    rest = textwrap.dedent("\n".join(source_lines[start + 1 : end])).split("\n") if end > start + 1 else []
    out = [first[col:], *rest]
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out).strip("\n")


@dataclass
class Section:
    """A heading and the blocks under it up to the next heading of the same or a higher level."""

    level: int
    title: str
    heading: SyntaxTreeNode | None = None
    blocks: list[SyntaxTreeNode] = field(default_factory=list)
    """Blocks before the first sub-heading."""
    children: list[Section] = field(default_factory=list)


def sections(root: SyntaxTreeNode) -> Section:
    """The document as nested sections; blocks before the first heading belong to the root."""
    top = Section(0, "")
    stack = [top]
    for node in root.children:
        if node.type == "heading":
            level = int(node.tag[1:])
            while stack[-1].level >= level:
                stack.pop()
            sec = Section(level, plain(node).strip(), node)
            stack[-1].children.append(sec)
            stack.append(sec)
        else:
            stack[-1].blocks.append(node)
    return top


def all_blocks(section: Section) -> list[SyntaxTreeNode]:
    """Every block of a section, its sub-headings included, in document order."""
    out = list(section.blocks)
    for child in section.children:
        if child.heading is not None:
            out.append(child.heading)
        out += all_blocks(child)
    return out
