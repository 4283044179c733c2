"""A shell script read with a real parser (tree-sitter's bash grammar), not line by line.

The script is walked in the order it runs, keeping what it assigns (`MODEL=…`, arrays
`ARGS=( … )` and `ARGS+=( … )`, `export`), so that each simple command it would run is
seen with its words as written and as they resolve: `--model "$MODEL"` → the path,
`"${ARGS[@]}"` → the array's words. Nothing is run: `$(…)`, `$((…))` and variables the
script does not set stay as written. Functions are walked where they are called (with
their arguments as `$1`…), or at the end when never called; `if`, `case` and loops are
walked through, and what is inside them carries the condition it runs under.

tree-sitter is MIT-licensed with prebuilt wheels; bashlex, the other full bash parser
for Python, is GPLv3, which an MIT package cannot take on as a dependency.
"""

from __future__ import annotations

import fnmatch
import operator
import re
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

_STATEMENT_BLOCKS = {"program", "compound_statement", "do_group", "subshell", "else_clause"}
_REDIRECTS = {"file_redirect", "heredoc_redirect", "herestring_redirect"}
_RAW = {"command_substitution", "process_substitution", "arithmetic_expansion", "translated_string"}
_UNESCAPE = re.compile(r"\\(.)", re.S)
_UNESCAPE_QUOTED = re.compile(r"\\([\"\\$`])")
_NUMERIC = {
    "-eq": operator.eq,
    "-ne": operator.ne,
    "-gt": operator.gt,
    "-ge": operator.ge,
    "-lt": operator.lt,
    "-le": operator.le,
}


@cache
def _parser() -> Parser:
    # Imported here, not at the top: only an import of a script needs the parser, and
    # `statedump --help` and every other command must not pay for loading it.
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


@dataclass
class Invocation:
    """One simple command the script runs, as written and as it resolves."""

    words: list[str]
    """Its words with the script's variables put in (array expansions give several)."""
    text: str
    """The statement it belongs to, verbatim (a `&&` list, a pipeline, redirections included)."""
    line: int
    """1-based line where the statement starts."""
    end_line: int
    prefix: dict[str, str] = field(default_factory=dict)
    """`VAR=value` written before the program, resolved."""
    exported: dict[str, str] = field(default_factory=dict)
    """The script's exported variables at this point: the environment it runs with."""
    conditions: list[str] = field(default_factory=list)
    """The `if` / `case` / loop headers (and function) it is inside."""
    conditional: list[tuple[str, str]] = field(default_factory=list)
    """Words that came from an array append made under a condition: (word, condition)."""


@dataclass
class Script:
    """What walking a script found."""

    invocations: list[Invocation]
    comments: list[tuple[int, str]]
    """(1-based line, text) of every comment that is alone on its line."""
    error_lines: list[int]
    """Lines the grammar could not read."""
    variables: dict[str, str]


class _Walker:
    def __init__(self, source: bytes, variables: dict[str, str] | None = None) -> None:
        self.src = source
        self.vars: dict[str, str] = dict(variables or {})
        self.arrays: dict[str, list[tuple[str, str | None, bool]]] = {}
        """Array -> its elements: (word, the condition it was appended under, whether that
        condition holds with the values the script sets; False leaves it out of expansions)."""
        self.exported: set[str] = set(variables or {})
        self.functions: dict[str, Node] = {}
        self.called: set[str] = set()
        self.out: list[Invocation] = []
        self.conditions: list[str] = []
        self.off = 0
        """How many enclosing conditions are known to be false with the script's own values."""
        self.depth = 0

    def text(self, node: Node) -> str:
        return self.src[node.start_byte : node.end_byte].decode("utf-8", "replace")

    # -- values -------------------------------------------------------------------

    def value(self, node: Node, quoted: bool = False) -> list[str]:
        """The words a node gives: one, except for an array expansion or an unquoted split."""
        kind = node.type
        if kind == "word":
            return [_UNESCAPE.sub(r"\1", self.text(node))]
        if kind == "raw_string":
            return [self.text(node)[1:-1]]
        if kind == "ansi_c_string":
            return [self.text(node)[2:-1]]
        if kind == "string_content":
            return [_UNESCAPE_QUOTED.sub(r"\1", self.text(node))]
        if kind == "string":
            inner = [c for c in node.children if c.type != '"']
            if len(inner) == 1 and inner[0].type == "expansion" and (words := self.value(inner[0], True)) and len(words) != 1:
                return words  # "${ARGS[@]}": one word per element
            return [self._joined(node, inner, quoted=True, start=node.start_byte + 1, end=node.end_byte - 1)]
        if kind == "concatenation":
            return [self._joined(node, node.children, quoted, node.start_byte, node.end_byte)]
        if kind == "simple_expansion":
            name = self.text(node)[1:]
            got = self.vars.get(name)
            if got is None:
                return [self.text(node)]
            return [got] if quoted else (got.split() or [""])
        if kind == "expansion":
            return self._expansion(node, quoted)
        return [self.text(node)]  # numbers, $(…), $((…)), globs: as written

    def _joined(self, node: Node, parts: list[Node], quoted: bool, start: int, end: int) -> str:
        out, at = [], start
        for child in parts:
            if child.start_byte > at:
                out.append(_UNESCAPE_QUOTED.sub(r"\1", self.src[at : child.start_byte].decode("utf-8", "replace")))
            out.append(" ".join(self.value(child, quoted)))
            at = child.end_byte
        if end > at:
            out.append(self.src[at:end].decode("utf-8", "replace"))
        return "".join(out)

    def _expansion(self, node: Node, quoted: bool) -> list[str]:
        raw = self.text(node)
        inner = node.children[1:-1]
        if not inner:
            return [raw]
        head = inner[0]
        if head.type == "subscript":
            name_node = head.child_by_field_name("name")
            index_node = head.child_by_field_name("index")
            name = self.text(name_node) if name_node else ""
            index = self.text(index_node) if index_node else ""
            if name not in self.arrays:
                return [raw]
            items = [v for v, _, active in self.arrays[name] if active]
            if index == "@":
                return items if quoted else [w for v in items for w in v.split()]
            if index == "*":
                return [" ".join(items)]
            return [items[int(index)]] if index.isdigit() and int(index) < len(items) else [raw]
        if head.type != "variable_name":
            return [raw]  # ${#A}, ${!A}: not worth guessing
        name = self.text(head)
        current = self.vars.get(name)
        if name in self.arrays and current is None:
            current = next((v for v, _, active in self.arrays[name] if active), "")
        if len(inner) == 1:
            return [raw] if current is None else ([current] if quoted else current.split() or [""])
        op = inner[1].type
        operand = self._joined(node, inner[2:], True, inner[1].end_byte, node.children[-1].start_byte) if len(inner) > 2 else ""
        if op in (":-", "-", ":=", "="):
            use_default = current is None or (op.startswith(":") and current == "")
            result = operand if use_default else current
            if use_default and "=" in op:
                self.vars[name] = operand
        elif op in (":+", "+"):
            result = operand if current else ""
        elif op in ("#", "##", "%", "%%") and current is not None:
            result = _strip(current, operand, op)
        else:
            return [raw]
        assert result is not None
        return [result] if quoted else (result.split() or [""])

    # -- statements ---------------------------------------------------------------

    def walk(self, node: Node, stmt: Node | None = None) -> None:
        kind = node.type
        if stmt is None or node.parent is None or node.parent.type in _STATEMENT_BLOCKS:
            stmt = node
        if kind in ("comment", "ERROR") or kind in _RAW:
            return
        if kind == "variable_assignment":
            self._assign(node)
        elif kind == "declaration_command":
            self._declare(node)
        elif kind == "function_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is not None and body is not None:
                self.functions[self.text(name)] = body
        elif kind == "command":
            self._command(node, stmt)
        elif kind == "if_statement":
            self._if(node)
        elif kind == "case_statement":
            self._case(node)
        elif kind in ("for_statement", "c_style_for_statement", "while_statement"):
            body = node.child_by_field_name("body")
            header = self.text(node)[: (body.start_byte - node.start_byte) if body else None].strip()
            self._under(header.rstrip(";").strip(), [body] if body else [])
        else:
            for child in node.named_children:
                if child.type not in _REDIRECTS:
                    self.walk(child, stmt)

    def _under(self, condition: str, nodes: list[Node], holds: bool | None = None) -> None:
        self.conditions.append(" ".join(condition.split()) + (" (false with the script's values)" if holds is False else ""))
        self.off += holds is False
        for child in nodes:
            self.walk(child, None)
        self.off -= holds is False
        self.conditions.pop()

    def _holds(self, nodes: list[Node]) -> bool | None:
        """Whether `[ "$X" = y ]`, `[ "$N" -gt 0 ]`, `[ -z "$X" ]` holds with the values the
        script set; None when it cannot be known without running anything."""
        if len(nodes) != 1 or nodes[0].type != "test_command" or not nodes[0].named_children:
            return None
        expr, negate = nodes[0].named_children[0], False
        if expr.type == "unary_expression" and expr.children and expr.children[0].type == "!":
            expr, negate = expr.named_children[-1], True
        parts = [c for c in expr.children if c.is_named or c.type in ("=", "==", "!=")]
        values = [" ".join(self.value(c, True)) for c in parts]
        if any("$" in v for v in values):
            return None
        result: bool | None = None
        if expr.type == "unary_expression" and len(values) == 2 and values[0] in ("-z", "-n"):
            result = (values[1] == "") == (values[0] == "-z")
        elif expr.type == "binary_expression" and len(values) == 3:
            left, op, right = values
            if op in ("=", "==", "!="):
                result = (left == right) == (op != "!=")
            elif op in _NUMERIC and left.lstrip("-").isdigit() and right.lstrip("-").isdigit():
                result = _NUMERIC[op](int(left), int(right))
        return None if result is None else result != negate

    def _if(self, node: Node) -> None:
        clauses = [c for c in node.children if c.type in ("elif_clause", "else_clause")]
        condition, body = _split_at([c for c in node.children if c not in clauses], "then")
        header = " ".join(self.text(n) for n in condition).strip()
        for part in condition:
            self.walk(part, part)
        holds = self._holds(condition)
        self._under(f"if {header}", body, holds)
        for clause in clauses:
            label = "else" if clause.type == "else_clause" else "elif"
            otherwise = None if holds is None or len(clauses) > 1 else not holds
            self._under(f"{label} (after {header})", [c for c in clause.named_children if c.type != "comment"], otherwise)

    def _case(self, node: Node) -> None:
        value = node.child_by_field_name("value")
        subject = self.text(value) if value is not None else "?"
        for item in (c for c in node.named_children if c.type == "case_item"):
            patterns, body = _split_at(item.children, ")")
            self._under(f"case {subject} in {'|'.join(self.text(p) for p in patterns)})", body)

    def _assign(self, node: Node, export: bool = False) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None or name_node.type != "variable_name":
            return  # A[0]=x: elements by index are not followed
        name = self.text(name_node)
        value = node.child_by_field_name("value")
        append = any(c.type == "+=" for c in node.children)
        condition = " / ".join(self.conditions) or None
        if value is not None and value.type == "array":
            items = [(w, condition, not self.off) for c in value.named_children if c.type != "comment" for w in self.value(c)]
            self.arrays[name] = (self.arrays.get(name, []) if append else []) + items
            self.vars.pop(name, None)
        elif not self.off:  # under a condition known to be false the assignment does not happen
            got = " ".join(self.value(value, quoted=True)) if value is not None else ""
            self.vars[name] = (self.vars.get(name, "") + got) if append else got
        if export:
            self.exported.add(name)

    def _declare(self, node: Node) -> None:
        first = node.children[0].type if node.children else ""
        flags = [self.text(c) for c in node.named_children if c.type == "word"]
        export = first == "export" or any(f.startswith("-") and "x" in f for f in flags)
        for child in node.named_children:
            if child.type == "variable_assignment":
                self._assign(child, export)
            elif child.type == "variable_name" and export:
                self.exported.add(self.text(child))

    def _command(self, node: Node, stmt: Node) -> None:
        prefix: dict[str, str] = {}
        words: list[str] = []
        conditional: list[tuple[str, str]] = []
        for child in node.named_children:
            if child.type == "variable_assignment" and not words:
                name = child.child_by_field_name("name")
                value = child.child_by_field_name("value")
                if name is not None:
                    prefix[self.text(name)] = " ".join(self.value(value, True)) if value is not None else ""
            elif child.type in _REDIRECTS or child.type == "comment":
                continue
            else:
                target = child.named_children[0] if child.type == "command_name" and child.named_children else child
                words += self.value(target)
                conditional += self._conditional_words(target)
        if not words:
            return
        if words[0] in self.functions and self.depth < 8:
            self._call(words[0], words[1:])
            return
        self.out.append(
            Invocation(
                words=words,
                text=self.text(stmt),
                line=stmt.start_point[0] + 1,
                end_line=stmt.end_point[0] + 1,
                prefix=prefix,
                exported={k: self.vars[k] for k in sorted(self.exported) if k in self.vars},
                conditions=list(self.conditions),
                conditional=conditional,
            )
        )

    def _conditional_words(self, node: Node) -> list[tuple[str, str]]:
        text = self.text(node)
        found = re.search(r"\$\{([A-Za-z_]\w*)\[[@*]\]\}", text)
        if not found or found.group(1) not in self.arrays:
            return []
        return [(v, c) for v, c, _ in self.arrays[found.group(1)] if c is not None]

    def _call(self, name: str, args: list[str]) -> None:
        self.called.add(name)
        saved = {k: self.vars.get(k) for k in map(str, range(1, 10))}
        for i in range(1, 10):
            self.vars.pop(str(i), None)
        for i, arg in enumerate(args[:9], start=1):
            self.vars[str(i)] = arg
        self.depth += 1
        self._under(f"function {name}", [self.functions[name]])
        self.depth -= 1
        for k, v in saved.items():
            if v is None:
                self.vars.pop(k, None)
            else:
                self.vars[k] = v


def _split_at(children: list[Node], marker: str) -> tuple[list[Node], list[Node]]:
    """The named children before and after the `marker` token (`then`, a case item's `)`)."""
    before: list[Node] = []
    after: list[Node] = []
    seen = False
    for child in children:
        if child.type == marker and not seen:
            seen = True
        elif child.is_named and child.type != "comment":
            (after if seen else before).append(child)
    return before, after


def _strip(value: str, pattern: str, op: str) -> str:
    """`${V#p}`, `${V##p}`, `${V%p}`, `${V%%p}` with a glob pattern."""
    cuts = range(len(value) + 1)
    if op.startswith("#"):
        for i in reversed(cuts) if op == "##" else cuts:
            if fnmatch.fnmatchcase(value[:i], pattern):
                return value[i:]
    else:
        for i in cuts if op == "%%" else reversed(cuts):
            if fnmatch.fnmatchcase(value[i:], pattern):
                return value[:i]
    return value


def _comments(root: Node, source: bytes) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "comment":
            line_start = source.rfind(b"\n", 0, node.start_byte) + 1
            if not source[line_start : node.start_byte].strip():  # alone on its line
                out.append((node.start_point[0] + 1, source[node.start_byte : node.end_byte].decode("utf-8", "replace")))
        stack.extend(reversed(node.children))
    return sorted(out)


def _errors(root: Node) -> list[int]:
    lines: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            lines.add(node.start_point[0] + 1)
        elif node.has_error:
            stack.extend(node.children)
    return sorted(lines)


def parse_script(text: str, variables: dict[str, str] | None = None) -> Script:
    """Walk a script; `variables` are set (and exported) before it starts."""
    source = text.encode("utf-8", "surrogatepass")
    tree = _parser().parse(source)
    walker = _Walker(source, variables)
    walker.walk(tree.root_node)
    for name in list(walker.functions):
        if name not in walker.called:  # a library of functions: still read what they run
            walker._call(name, [])
    return Script(walker.out, _comments(tree.root_node, source), _errors(tree.root_node), walker.vars)
