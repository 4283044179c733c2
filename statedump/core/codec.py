"""Records and sessions to and from YAML text.

The written form is for humans and diffs: a schema header line, stable key order
(common fields, the kind's own fields, then tags, links, body), multi-line text as
`|` blocks, no defaults or nulls, UTF-8, one trailing newline. Reading is strict:
safe loader only, no aliases, unknown fields refused.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import yaml
from pydantic import ValidationError

from statedump.core.errors import BadInput, StatedumpError, from_validation
from statedump.models import KINDS, RecordBase, Session, field_order

_STR, _SEQ, _MAP = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"

MAX_FILE_BYTES = 1024 * 1024
"""A record file larger than this is refused: records are small, and a huge file is a mistake."""

_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[misc]
    """The safe loader, resolving plain scalars the same way with less work per node.

    The C parser asks Python to resolve the tag of every node it builds: PyYAML's resolver
    copies two lists and consults path resolvers on each call. Here the implicit resolvers are
    looked up by first character once, and path resolvers (which safe loading never has) are
    skipped. The result is the same tag for every value."""

    _first: ClassVar[dict[str, list[tuple[str, Any]]]] = {}

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode:
            if implicit[0]:
                for tag, regexp in self._first.get(value[:1], ()):
                    if regexp.match(value):
                        return str(tag)
            return _STR
        return _SEQ if kind is yaml.SequenceNode else _MAP

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None


# Keyed by first character as PyYAML keys them ("" for the empty value); safe loading
# registers no resolver for "any character" (None), which this relies on.
assert not yaml.SafeLoader.yaml_implicit_resolvers.get(None)
_Loader._first = {ch: list(found) for ch, found in yaml.SafeLoader.yaml_implicit_resolvers.items() if ch is not None}
_BaseDumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_BaseDumper):  # type: ignore[misc]
    """Safe dumper that writes multi-line strings as literal blocks, and never an anchor:
    a value that appears twice (the same date as `started` and a checkpoint's `at`) is
    written twice, so every file reads the same in any YAML tool."""

    # The C emitter asks Python for the implicit tag of every scalar, twice: the loader's
    # resolver gives the same tags with less work (the dumper's resolvers are the loader's, below).
    _first = _Loader._first
    resolve = _Loader.resolve
    descend_resolver = _Loader.descend_resolver
    ascend_resolver = _Loader.ascend_resolver

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _str(dumper: Any, value: str) -> Any:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _datetime(dumper: Any, value: datetime) -> Any:
    # ISO 8601 with 'T' and 'Z' reads the same in every YAML and JSON tool.
    try:
        text = value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    except OverflowError:  # 9999-12-31T23:59:59-12:00 is in the year 10000 in UTC
        raise BadInput(
            f"the date and time {value.isoformat()} is past the year 9999 in UTC",
            where="at",
            hint="give a date and time before 9999-12-31T23:59:59Z",
        ) from None
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", text)


assert _BaseDumper.yaml_implicit_resolvers == yaml.SafeLoader.yaml_implicit_resolvers and not _BaseDumper.yaml_path_resolvers
_Dumper.add_representer(str, _str)
_Dumper.add_representer(datetime, _datetime)


def schema_header(kind: str, depth: int) -> str:
    """The first line of a file: tells YAML-aware editors which schema to check it with."""
    return f"# yaml-language-server: $schema={'../' * depth}schemas/{kind}.schema.json\n"


_STR_TAG, _INT_TAG, _BOOL_TAG, _NULL_TAG = (f"tag:yaml.org,2002:{t}" for t in ("str", "int", "bool", "null"))
_SEQ_TAG, _MAP_TAG = "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"


def _node(dumper: Any, value: Any) -> Any:
    """The node PyYAML's safe representer makes of `value` (with `_str` for text), built
    directly for the plain types a record holds: its generic walk (a type lookup through
    the MRO and alias bookkeeping for every value) was half the cost of writing a file.
    Any other type goes through the representer itself."""
    kind = type(value)
    if kind is str:
        return yaml.ScalarNode(_STR_TAG, value, style="|" if "\n" in value else None)
    if kind is dict:
        return yaml.MappingNode(_MAP_TAG, [(_node(dumper, k), _node(dumper, v)) for k, v in value.items()], flow_style=False)
    if kind is list:
        return yaml.SequenceNode(_SEQ_TAG, [_node(dumper, v) for v in value], flow_style=False)
    if kind is bool:
        return yaml.ScalarNode(_BOOL_TAG, "true" if value else "false")
    if kind is int:
        return yaml.ScalarNode(_INT_TAG, str(value))
    if value is None:
        return yaml.ScalarNode(_NULL_TAG, "null")
    return dumper.represent_data(value)


def _emit(data: dict[str, Any]) -> str:
    # What `yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
    # width=100_000, indent=2)` writes, with the nodes made by `_node`.
    stream = io.StringIO()
    dumper = _Dumper(stream, default_flow_style=False, sort_keys=False, allow_unicode=True, width=100_000, indent=2)
    try:
        dumper.open()
        dumper.serialize(_node(dumper, data))
        dumper.close()
    finally:
        dumper.dispose()
    return stream.getvalue()


def record_data(record: RecordBase) -> dict[str, Any]:
    """The record as plain data in file order, without defaults and nulls."""
    raw = record.model_dump(mode="python", exclude_defaults=True, exclude_none=True)
    raw["kind"] = record.kind
    raw["status"] = record.status
    return {name: raw[name] for name in field_order(type(record)) if name in raw}


def dump_record(record: RecordBase) -> str:
    """The file text of a record."""
    return schema_header(record.kind, 3) + _emit(record_data(record))


def dump_session(session: Session) -> str:
    """The text of `session.yaml`."""
    data = session.model_dump(mode="python", exclude_defaults=True, exclude_none=True)
    data["status"] = session.status
    ordered = {name: data[name] for name in Session.model_fields if name in data}
    return schema_header("session", 2) + _emit(ordered)


_SCALARS = {f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float", "timestamp")}
_scalars: Any = yaml.constructor.SafeConstructor()
_ScalarNode = yaml.ScalarNode


class _Refused(ValueError):
    """YAML that parses but that statedump files never hold (aliases, tags, merges, repeated keys)."""


def _build(node: Any, seen: set[int]) -> Any:
    """Plain data from the parser's node tree: the safe loader's meaning for every plain
    scalar, and nothing else. Building it here rather than with PyYAML's constructor is half
    the cost of reading a file (its constructor is generic Python), and it is where the
    strict rules are checked: an anchor used twice (the "billion laughs" file), any tag
    beyond the plain ones, merge keys and repeated keys are refused."""
    tag = node.tag
    if type(node) is _ScalarNode:
        if tag == _STR:
            return node.value
        if tag in _SCALARS:
            return _scalars.yaml_constructors[tag](_scalars, node)
        raise _Refused(f"unsupported YAML tag {tag.replace('tag:yaml.org,2002:', '!!')}")
    # The parser gives an alias as the very node it names: a collection met twice is an
    # alias (the "billion laughs" file). An alias of a single value costs nothing and older
    # versions of statedump wrote them for a repeated date, so those are still read.
    if id(node) in seen:
        raise _Refused("YAML anchors and aliases are not allowed in statedump files")
    seen.add(id(node))
    if isinstance(node, yaml.SequenceNode) and tag == _SEQ:
        return [_build(item, seen) for item in node.value]
    if isinstance(node, yaml.MappingNode) and tag == _MAP:
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise _Refused("YAML merge keys (<<) are not allowed in statedump files")
            key = _build(key_node, seen)
            if isinstance(key, dict | list):
                raise _Refused("a mapping key must be plain text")
            if key in out:
                raise _Refused(f"the key {key!r} appears twice")
            out[key] = _build(value_node, seen)
        return out
    raise _Refused(f"unsupported YAML tag {tag.replace('tag:yaml.org,2002:', '!!')}")


def load_yaml(text: str) -> Any:
    """The data in one YAML document, read strictly (see `_build`); None for an empty one."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    finally:
        loader.dispose()
    return None if node is None else _build(node, set())


def parse_yaml(data: bytes, where: str | Path) -> dict[str, Any]:
    """Parse one statedump file into a mapping, or raise one clear error naming the file."""
    if len(data) > MAX_FILE_BYTES:
        raise StatedumpError(
            f"file is {len(data)} bytes, over the {MAX_FILE_BYTES}-byte limit for one record",
            where=where,
            hint="keep long logs as files and link them with a `file` record",
        )
    if b"\x00" in data:
        raise StatedumpError("file contains NUL bytes; it looks binary", where=where, hint="records are UTF-8 text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise StatedumpError(f"not valid UTF-8 (byte {err.start})", where=where, hint="save the file as UTF-8") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        loaded = load_yaml(text)
    except yaml.constructor.ConstructorError as err:
        raise StatedumpError(
            f"unsupported YAML tag: {err.problem}", where=where, hint="statedump files use plain YAML; remove the !!tag"
        ) from None
    except _Refused as err:
        raise StatedumpError(str(err), where=where, hint="statedump files use plain YAML: no anchors, tags or repeated keys") from None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        line = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise StatedumpError(f"malformed YAML{line}: {err.problem or err}", where=where, hint="fix the YAML syntax") from None
    except (yaml.YAMLError, ValueError, RecursionError) as err:
        raise StatedumpError(f"unreadable YAML: {err}", where=where, hint="fix the YAML syntax") from None
    if not isinstance(loaded, dict):
        raise StatedumpError("expected a mapping of fields (key: value)", where=where, hint="start each field on its own line")
    return loaded


def record_from_data(data: dict[str, Any], where: str | Path, kind: str | None = None) -> RecordBase:
    """Validate plain data as a record of its `kind` (or the given kind)."""
    found = data.get("kind", kind)
    if kind is not None and found != kind:
        raise StatedumpError(f"field 'kind' is '{found}' but the file is under '{kind}/'", where=where)
    if found not in KINDS:
        raise StatedumpError(
            f"field 'kind': unknown kind {found!r}",
            where=where,
            hint=f"use one of: {', '.join(KINDS)}",
        )
    data = {**data, "kind": found}
    try:
        return KINDS[found].model_validate(data)
    except ValidationError as err:
        raise from_validation(err, where, kind=found, fields=list(KINDS[found].model_fields)) from None


def load_record(data: bytes, where: str | Path, kind: str | None = None) -> RecordBase:
    """Read a record file's bytes."""
    return record_from_data(parse_yaml(data, where), where, kind)


def load_session(data: bytes, where: str | Path) -> Session:
    """Read a `session.yaml` file's bytes."""
    try:
        return Session.model_validate(parse_yaml(data, where))
    except ValidationError as err:
        raise from_validation(err, where) from None
