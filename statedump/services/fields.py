"""Fields as typed: the one rule that turns loose input into values of a record's fields.

Every face hands statedump values that are not yet typed: `--field key=value` gives text,
a `--from` file or the editor gives YAML (where `12.8`, `yes` and `2026-03-14` are not text),
an MCP client gives JSON (where `"tp": 2` is a number). The model's field types decide:

- a text field takes the value as written: `--field 'quote=use tp=2 # not 4'` keeps the
  comment sign, `cuda: 12.8` in YAML is the text `12.8`, `"tp": 2` in JSON the text `2`;
- a number, a flag (true/false) or a time is parsed from text (pydantic does that);
- a list, a mapping or a nested model (metrics, alternatives, environment) is flow YAML or
  JSON on the command line, or `key=@FILE` to read it from a file.

`build` in services/records applies this to whatever a face passes, so the CLI, `--from`,
`$EDITOR` and the MCP tools all read a value the same way.
"""

from __future__ import annotations

import re
import types
import typing
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from statedump.core import codec
from statedump.core.errors import BadInput


class Written(str):
    """A YAML scalar that YAML reads as something other than text (`12.8`, `yes`, a date),
    kept as it was written; `value` is YAML's reading. A text field takes the text."""

    value: Any

    def __new__(cls, text: str, value: Any) -> Written:
        made = super().__new__(cls, text)
        made.value = value
        return made


@dataclass(frozen=True)
class Shape:
    """What a field holds: `text`, `number`, `flag`, `time`, `list`, `map`, `model` or `any`."""

    kind: str
    item: Shape | None = None
    model: type[BaseModel] | None = None

    @property
    def structured(self) -> bool:
        return self.kind in ("list", "map", "model")


ANY = Shape("any")
_YAML_SPECIAL = re.compile(r"^([-+]?)\.(inf|nan)$", re.IGNORECASE)


def shape_of(annotation: Any) -> Shape:
    """The shape of a type annotation as pydantic resolved it."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return shape_of(args[0])
    if origin in (typing.Union, types.UnionType):
        shapes = [shape_of(a) for a in args if a is not type(None)]
        return shapes[0] if len({s.kind for s in shapes}) == 1 else ANY
    if origin is typing.Literal:
        return Shape("text") if all(isinstance(a, str) for a in args) else ANY
    if origin is list:
        return Shape("list", item=shape_of(args[0]) if args else ANY)
    if origin is dict:
        return Shape("map", item=shape_of(args[1]) if len(args) == 2 else ANY)
    if annotation is str:
        return Shape("text")
    if annotation is bool:
        return Shape("flag")
    if annotation in (int, float):
        return Shape("number")
    if annotation is datetime:
        return Shape("time")
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return Shape("model", model=annotation)
    return ANY


def field_shape(model: type[BaseModel], name: str) -> Shape:
    field = model.model_fields.get(name)
    return ANY if field is None else shape_of(field.annotation)


def path_shape(model: type[BaseModel], path: list[str]) -> Shape:
    """The shape at a dotted path: `environment.tp` is a value of the `environment` mapping.
    A path that goes on past a text, a number or a list is refused (BadInput)."""
    shape = Shape("model", model=model)
    for n, part in enumerate(path):
        if shape.kind == "model" and shape.model is not None:
            shape = field_shape(shape.model, part)
        elif shape.kind == "map" and shape.item is not None:
            shape = shape.item
        elif shape.kind == "any":
            return ANY
        else:
            name = ".".join(path[:n])
            raise BadInput(
                f"{name} is a {shape.kind}, not a mapping", where=f"--field {'.'.join(path)}", hint=f"set it with --field {name}=..."
            )
    return shape


def _as_text(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)  # the shortest text that reads back as the same number
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value


def typed(value: Any, shape: Shape) -> Any:
    """`value` with each part given what its field expects: text where text is expected (as
    written, for YAML), YAML's reading elsewhere. Values of the wrong sort are left for the
    model's validation to name."""
    if isinstance(value, Written):
        return str(value) if shape.kind == "text" else typed(value.value, shape)
    if shape.kind == "text":
        return _as_text(value)
    if isinstance(value, list):
        item = shape.item if shape.kind == "list" and shape.item is not None else ANY
        return [typed(v, item) for v in value]
    if isinstance(value, dict):
        if shape.kind == "model" and shape.model is not None:
            model = shape.model
            return {_key(k): typed(v, field_shape(model, _key(k))) for k, v in value.items()}
        item = shape.item if shape.kind == "map" and shape.item is not None else ANY
        return {_key(k): typed(v, item) for k, v in value.items()}
    return value


def _key(key: Any) -> Any:
    # Mapping keys are names: `8: x` under `environment` is the key "8".
    return str(key) if isinstance(key, Written) else _as_text(key)


def _mark(value: Any, node: Any) -> Any:
    if isinstance(node, yaml.ScalarNode):
        if value is not None and not isinstance(value, str) and not node.style:  # plain: None, or '' from libyaml
            return Written(node.value, value)
        return value
    if isinstance(node, yaml.SequenceNode) and isinstance(value, list):
        return [_mark(v, n) for v, n in zip(value, node.value, strict=True)]
    if isinstance(node, yaml.MappingNode) and isinstance(value, dict):
        return {_mark(k, kn): _mark(v, vn) for (k, v), (kn, vn) in zip(value.items(), node.value, strict=True)}
    return value


def load_as_written(data: bytes, where: str | Path) -> dict[str, Any]:
    """A YAML mapping read as strictly as any statedump file (`codec.parse_yaml`), with every
    scalar that YAML would not read as text marked `Written`, so text fields keep it as typed."""
    loaded = codec.parse_yaml(data, where)
    text = data.decode("utf-8").removeprefix("\ufeff")
    # The strict parse above has refused anything unusual; composing the same text again
    # gives the scalars as written (plain composition constructs nothing).
    node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    marked = _mark(loaded, node)
    assert isinstance(marked, dict)
    return marked


def from_text(model: type[BaseModel], key: str, raw: str, where: str | None = None) -> Any:
    """The value of `--field key=raw` for a field of `model`: text as given for a text field;
    flow YAML or JSON (or `@FILE`) for a list, mapping or nested record; the bare text for a
    number, flag or time, which validation parses."""
    shape = path_shape(model, key.split("."))
    where = where or f"--field {key}"
    if not shape.structured:
        if shape.kind == "text":
            return raw
        # YAML's spelling of infinity and NaN (`.inf`, as files and `show` write them) is a number too.
        return _YAML_SPECIAL.sub(r"\1\2", raw.strip())
    if raw.startswith("@"):
        path = Path(raw[1:]).expanduser()
        if not path.is_file():
            raise BadInput("no such file" if not path.is_dir() else "expected a file, found a folder", where=f"{where}: {path}")
        source: str | Path = path
        text = path.read_bytes().decode("utf-8", errors="replace")
    else:
        source, text = where, raw
    # The value sits under one key so that a bare list or scalar reads as one, on one line
    # (flow YAML, JSON) or many (a file).
    wrapped = "v:\n" + "".join(f"  {line}\n" for line in text.splitlines())
    return load_as_written(wrapped.encode(), source).get("v")
