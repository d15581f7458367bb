"""Schemas of a definition's slots: a JSON Schema dict, a Pydantic v2 model, or any type Pydantic's
``TypeAdapter`` understands, written as JSON Schema 2020-12 in the form the TypeScript SDK writes for Zod
(no ``$schema``, no generated titles, ``$ref``s inlined, ``T | None`` as ``{"type": [T, "null"]}``), so
one schema gives the same index whichever language declared it."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import pydantic
import pydantic_core
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode

from kindgi.pack.definitions import ConversionError, JsonSchema

Side = Literal["input", "output"]

# Keywords whose value maps names to schemas: their keys are names, not keywords.
_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


class SchemaProblem(ValueError):
    """A slot cannot be a JSON Schema; the message says why."""


class _NoGeneratedTitles(GenerateJsonSchema):
    """Pydantic's generator without the titles it makes up from class and field names (Zod and the Java
    SDK write none); titles an author sets explicitly stay."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def _drop_class_title(self, out: Any, schema: Any) -> Any:
        cls = schema.get("cls")
        if isinstance(out, dict) and cls is not None and out.get("title") == cls.__name__:
            del out["title"]
        return out

    def model_schema(self, schema: Any) -> Any:
        return self._drop_class_title(super().model_schema(schema), schema)

    def dataclass_schema(self, schema: Any) -> Any:
        return self._drop_class_title(super().dataclass_schema(schema), schema)

    def enum_schema(self, schema: Any) -> Any:
        return self._drop_class_title(super().enum_schema(schema), schema)

    def typed_dict_schema(self, schema: Any) -> Any:
        return self._drop_class_title(super().typed_dict_schema(schema), schema)


@dataclass(frozen=True)
class Slot:
    """One schema slot: its JSON Schema (``None`` when not given) and the conversions between JSON and
    what the author's code takes and returns."""

    schema: JsonSchema | None
    to_python: Callable[[Any], Any]
    to_json: Callable[[Any], Any]
    python_type: Any = None


def is_model_class(value: Any) -> bool:
    return inspect.isclass(value) and issubclass(value, pydantic.BaseModel)


def slot_from(value: Any, side: Side) -> Slot:
    """The slot for ``value``: ``None`` (not given), a JSON Schema (``dict`` or ``bool``, kept verbatim), a
    Pydantic model class, or a type annotation (``list[str]``, a dataclass, ``TypedDict``, ...).
    Raises ``SchemaProblem``."""
    if value is None:
        return Slot(None, _identity, to_json_value)
    if isinstance(value, bool):
        return Slot(value, _identity, to_json_value)
    if isinstance(value, Mapping):
        return Slot(copy.deepcopy(dict(value)), _identity, to_json_value)
    try:
        adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(value)
        schema = schema_of_adapter(adapter, side)
    except (pydantic.PydanticSchemaGenerationError, pydantic.PydanticUserError, TypeError) as error:
        raise SchemaProblem(f"{_type_name(value)} cannot be a JSON Schema: {error}") from error
    return Slot(schema, _validator(adapter), _dumper(adapter), value)


def schema_of_adapter(adapter: pydantic.TypeAdapter[Any], side: Side) -> dict[str, Any]:
    """Pydantic's JSON Schema of ``adapter`` (validation mode for inputs and configs, serialization for
    outputs), normalised."""
    mode: JsonSchemaMode = "validation" if side == "input" else "serialization"
    raw = adapter.json_schema(mode=mode, schema_generator=_NoGeneratedTitles)
    return normalise(raw, closed_objects=side == "output")


def normalise(schema: dict[str, Any], *, closed_objects: bool = False) -> dict[str, Any]:
    """Inlines ``$ref``s to ``$defs`` (keeping ``$defs`` only for recursive types), folds
    ``anyOf: [{"type": T}, {"type": "null"}]`` into ``{"type": [T, "null"]}`` and drops a ``None``
    default (an optional field is simply not required). With ``closed_objects`` (the output side, as Zod
    writes it) a model's object gets ``additionalProperties: false`` unless it says otherwise."""
    defs = schema.pop("$defs", {})
    recursive = _recursive_defs(defs)
    kept = {name: defs[name] for name in recursive}

    def walk(node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name not in recursive and name in defs:
                rest = {k: v for k, v in node.items() if k != "$ref"}
                inlined = copy.deepcopy(defs[name])
                # Pydantic names a def after its class and titles it so: a generated title.
                if inlined.get("title") == name:
                    del inlined["title"]
                return walk({**inlined, **rest}, (*stack, name))
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _NAME_MAPS and isinstance(value, dict):
                out[key] = {name: walk(sub, stack) for name, sub in value.items()}
            else:
                out[key] = walk(value, stack)
        return _fold(out, closed_objects)

    result: dict[str, Any] = walk(schema, ())
    if kept:
        result["$defs"] = {name: walk(sub, ()) for name, sub in kept.items()}
    return result


def _fold(node: dict[str, Any], closed_objects: bool) -> dict[str, Any]:
    branches = node.get("anyOf")
    if isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches:
        other = branches[0] if branches[1] == {"type": "null"} else branches[1]
        if isinstance(other, dict) and set(other) == {"type"} and isinstance(other["type"], str):
            del node["anyOf"]
            node["type"] = [other["type"], "null"]
    if "default" in node and node["default"] is None:
        del node["default"]
    if closed_objects and node.get("type") == "object" and "properties" in node:
        node.setdefault("additionalProperties", False)
    return node


def _recursive_defs(defs: Mapping[str, Any]) -> set[str]:
    """The names of ``$defs`` entries that reach themselves through ``$ref``s."""

    def refs(node: Any) -> set[str]:
        if isinstance(node, list):
            return set().union(*(refs(item) for item in node)) if node else set()
        if not isinstance(node, dict):
            return set()
        found = set().union(*(refs(value) for value in node.values())) if node else set()
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            found.add(ref.removeprefix("#/$defs/"))
        return found

    edges = {name: refs(sub) for name, sub in defs.items()}
    recursive: set[str] = set()
    for start in edges:
        seen: set[str] = set()
        frontier = list(edges[start])
        while frontier:
            name = frontier.pop()
            if name == start:
                recursive.add(start)
                break
            if name not in seen:
                seen.add(name)
                frontier.extend(edges.get(name, ()))
    # A def a recursive one uses must stay too, or its $ref would dangle.
    closure = set(recursive)
    frontier = [name for start in recursive for name in edges[start]]
    while frontier:
        name = frontier.pop()
        if name not in closure and name in edges:
            closure.add(name)
            frontier.extend(edges[name])
    return closure


def to_json_value(value: Any) -> Any:
    """A handler's result as JSON values: models, dataclasses, enums, dates, ... as Pydantic writes them.
    Raises ``ConversionError``."""
    try:
        return pydantic_core.to_jsonable_python(value)
    except pydantic_core.PydanticSerializationError as error:
        raise ConversionError(str(error), [{"instancePath": "", "message": str(error)}]) from error


def issues_of(error: pydantic.ValidationError) -> list[dict[str, Any]]:
    """Pydantic's errors as protocol issues (``instancePath`` a JSON Pointer, no ``keyword``)."""
    issues: list[dict[str, Any]] = []
    for item in error.errors(include_url=False):
        path = "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in item["loc"])
        issues.append({"instancePath": path, "message": item["msg"]})
    return issues


def _validator(adapter: pydantic.TypeAdapter[Any]) -> Callable[[Any], Any]:
    def to_python(value: Any) -> Any:
        try:
            return adapter.validate_python(value)
        except pydantic.ValidationError as error:
            raise ConversionError(str(error), issues_of(error)) from error

    return to_python


def _dumper(adapter: pydantic.TypeAdapter[Any]) -> Callable[[Any], Any]:
    def to_json(value: Any) -> Any:
        try:
            return adapter.dump_python(value, mode="json", by_alias=True, warnings=False)
        except (pydantic_core.PydanticSerializationError, ValueError, TypeError) as error:
            raise ConversionError(str(error), [{"instancePath": "", "message": str(error)}]) from error

    return to_json


def _identity(value: Any) -> Any:
    return value


def _type_name(value: Any) -> str:
    return getattr(value, "__name__", None) or repr(value)
