"""The models' field docstrings, read from their source only when a schema or a template needs them.

Each field of a model is documented by the string literal under it, as PEP 257 suggests for
attributes. pydantic can collect these itself (`use_attribute_docstrings`), but it does so
for every class at import time, by reading and parsing the module's source, on every
command (docs/performance.md has the cost), although only `schema`, `add --edit` templates and the MCP tool list show
the descriptions. Here they are collected on demand, the same way, and put into the JSON
Schema where pydantic would have put them.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import textwrap
from functools import cache
from typing import Any

from pydantic import BaseModel

from statedump.models.base import Model


@cache
def _own_docs(cls: type) -> dict[str, str]:
    """Field name -> docstring for the fields a class itself declares."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):  # no source shipped (a zipped or frozen install): no descriptions
        return {}
    tree = ast.parse(source)
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs: dict[str, str] = {}
    for first, second in itertools.pairwise(body):
        if (
            isinstance(first, ast.AnnAssign)
            and isinstance(first.target, ast.Name)
            and isinstance(second, ast.Expr)
            and isinstance(second.value, ast.Constant)
            and isinstance(second.value.value, str)
        ):
            docs[first.target.id] = inspect.cleandoc(second.value.value)
    return docs


def field_docs(cls: type[BaseModel]) -> dict[str, str]:
    """Field name -> docstring for every field of a model.

    A field takes the text under its last declaration: a subclass that declares a field
    again without a docstring leaves it undescribed, as pydantic does.
    """
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if isinstance(klass, type) and issubclass(klass, BaseModel) and klass is not BaseModel:
            own = _own_docs(klass)
            for name in inspect.get_annotations(klass):
                docs.pop(name, None)
                if name in own:
                    docs[name] = own[name]
    return {name: doc for name, doc in docs.items() if name in cls.model_fields}


def field_doc(cls: type[BaseModel], name: str) -> str:
    """One field's docstring ('' when it has none)."""
    return field_docs(cls).get(name, "")


def _models() -> dict[str, type[Model]]:
    """Every statedump model class by name, as pydantic names them in `$defs`."""
    found: dict[str, type[Model]] = {}
    todo: list[type[Model]] = [Model]
    while todo:
        cls = todo.pop()
        found[cls.__name__] = cls
        todo.extend(cls.__subclasses__())
    return found


def _describe(schema: dict[str, Any], cls: type[BaseModel]) -> None:
    docs = field_docs(cls)
    props = schema.get("properties", {})
    for name, prop in props.items():
        if name in docs and "description" not in prop:
            prop["description"] = docs[name]
            # pydantic sorts a property's keys; keep that order so published files stay the same.
            props[name] = dict(sorted(prop.items()))


def json_schema(cls: type[BaseModel]) -> dict[str, Any]:
    """`cls.model_json_schema(mode="validation")` with each field's docstring as its description."""
    schema = cls.model_json_schema(mode="validation")
    _describe(schema, cls)
    models = _models()
    for name, sub in schema.get("$defs", {}).items():
        if name in models:
            _describe(sub, models[name])
    return schema
