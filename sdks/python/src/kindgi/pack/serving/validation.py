"""A tool's input and output checked against its JSON Schema (2020-12), with the failures in Ajv's
shape (``instancePath``, ``schemaPath``, ``keyword``, ``params``, ``message``): callers compare them with
what the TypeScript and Java services send. The input side fills ``default`` values first, nested ones
too, as Ajv's ``useDefaults`` does.

Two validators: ``jsonschema_rs`` decides (a fraction of a microsecond for a small object, against tens
for the pure-Python ``jsonschema``), and only a value it refuses is walked again by ``jsonschema``, whose
errors carry what Ajv's issues need."""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Callable, Iterable
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError

Issue = dict[str, Any]


class SchemaCompileError(Exception):
    """The schema itself is not a valid JSON Schema."""


def _pointer(parts: Iterable[Any]) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def _limit(word: str, unit: str) -> Callable[[ValidationError], tuple[dict[str, Any], str]]:
    return lambda e: ({"limit": e.validator_value}, f"must NOT have {word} than {e.validator_value} {unit}")


def _compare(op: str) -> Callable[[ValidationError], tuple[dict[str, Any], str]]:
    return lambda e: ({"comparison": op, "limit": e.validator_value}, f"must be {op} {e.validator_value}")


def _type(e: ValidationError) -> tuple[dict[str, Any], str]:
    types = e.validator_value
    shown = ",".join(types) if isinstance(types, list) else types
    return {"type": shown}, f"must be {shown}"


# keyword → (params, message) as Ajv words them.
_AJV: dict[str, Callable[[ValidationError], tuple[dict[str, Any], str]]] = {
    "type": _type,
    "minLength": _limit("fewer", "characters"),
    "maxLength": _limit("more", "characters"),
    "minItems": _limit("fewer", "items"),
    "maxItems": _limit("more", "items"),
    "minProperties": _limit("fewer", "properties"),
    "maxProperties": _limit("more", "properties"),
    "minimum": _compare(">="),
    "maximum": _compare("<="),
    "exclusiveMinimum": _compare(">"),
    "exclusiveMaximum": _compare("<"),
    "enum": lambda e: ({"allowedValues": e.validator_value}, "must be equal to one of the allowed values"),
    "const": lambda e: ({"allowedValue": e.validator_value}, "must be equal to constant"),
    "pattern": lambda e: ({"pattern": e.validator_value}, f'must match pattern "{e.validator_value}"'),
    "format": lambda e: ({"format": e.validator_value}, f'must match format "{e.validator_value}"'),
    "multipleOf": lambda e: ({"multipleOf": e.validator_value}, f"must be multiple of {e.validator_value}"),
    "uniqueItems": lambda e: ({}, "must NOT have duplicate items"),
    "anyOf": lambda e: ({}, "must match a schema in anyOf"),
    "oneOf": lambda e: ({"passingSchemas": None}, "must match exactly one schema in oneOf"),
    "not": lambda e: ({}, "must NOT be valid"),
    "contains": lambda e: ({"minContains": 1}, "must contain at least 1 valid item(s)"),
    "propertyNames": lambda e: ({}, "property name must be valid"),
    "false": lambda e: ({}, "boolean schema is false"),
}

_REQUIRED = re.compile(r"^(.*) is a required property$")


def _quoted_name(message: str) -> str | None:
    match = _REQUIRED.match(message)
    if match is None:
        return None
    try:
        name = ast.literal_eval(match.group(1))
    except (ValueError, SyntaxError):
        return None
    return name if isinstance(name, str) else None


def _issue(path: str, schema_path: str, keyword: str, params: dict[str, Any], message: str) -> Issue:
    return {"instancePath": path, "schemaPath": schema_path, "keyword": keyword, "params": params, "message": message}


def _extra_properties(error: ValidationError) -> list[str]:
    schema, instance = error.schema, error.instance
    if not isinstance(schema, dict) or not isinstance(instance, dict):
        return []
    known = schema.get("properties", {})
    patterns = [re.compile(p) for p in schema.get("patternProperties", {})]
    return [k for k in instance if k not in known and not any(p.search(k) for p in patterns)]


def _issues_of(error: ValidationError) -> list[Issue]:
    path = _pointer(error.absolute_path)
    keyword = str(error.validator) if error.validator is not None else "false"
    schema_path = "#" + _pointer(error.absolute_schema_path)
    if keyword == "required":
        name = _quoted_name(error.message) or ""
        return [_issue(path, schema_path, keyword, {"missingProperty": name}, f"must have required property '{name}'")]
    if keyword in ("additionalProperties", "unevaluatedProperties"):
        param = "additionalProperty" if keyword == "additionalProperties" else "unevaluatedProperty"
        words = "additional" if keyword == "additionalProperties" else "unevaluated"
        return [
            _issue(path, schema_path, keyword, {param: name}, f"must NOT have {words} properties")
            for name in _extra_properties(error) or [""]
        ]
    describe = _AJV.get(keyword)
    if describe is None:
        return [_issue(path, schema_path, keyword, {}, f'must pass "{keyword}" keyword validation')]
    params, message = describe(error)
    return [_issue(path, schema_path, keyword, params, message)]


def _fill_defaults(schema: Any, value: Any) -> None:
    """Fills missing properties that have a ``default`` (a copy of it), then descends, so a default
    object gets its own properties' defaults too (Ajv's ``useDefaults``)."""
    if not isinstance(schema, dict):
        return
    if isinstance(value, dict):
        for name, sub in (schema.get("properties") or {}).items():
            if name not in value and isinstance(sub, dict) and "default" in sub:
                value[name] = copy.deepcopy(sub["default"])
            if name in value:
                _fill_defaults(sub, value[name])
    elif isinstance(value, list):
        prefix = schema.get("prefixItems")
        if isinstance(prefix, list):
            for at, sub in enumerate(prefix):
                if at < len(value):
                    _fill_defaults(sub, value[at])
        items = schema.get("items")
        if isinstance(items, dict):
            for item in value[len(prefix) if isinstance(prefix, list) else 0 :]:
                _fill_defaults(items, item)
    for sub in schema.get("allOf") or []:
        _fill_defaults(sub, value)


def _has_defaults(schema: Any) -> bool:
    if isinstance(schema, dict):
        return "default" in schema or any(_has_defaults(sub) for sub in schema.values())
    if isinstance(schema, list):
        return any(_has_defaults(sub) for sub in schema)
    return False


class CompiledSchema:
    """One schema, checked once and ready to validate many values."""

    __slots__ = ("_defaults", "_fast", "_schema", "_validator")

    def __init__(self, schema: Any) -> None:
        try:
            Draft202012Validator.check_schema(schema)
            self._fast = jsonschema_rs.Draft202012Validator(schema, validate_formats=True)
        except SchemaError as error:
            raise SchemaCompileError(error.message) from None
        except (ValueError, jsonschema_rs.ValidationError) as error:
            raise SchemaCompileError(str(error)) from None
        self._schema = schema
        self._defaults = _has_defaults(schema)
        self._validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)

    def validate(self, value: Any, *, fill_defaults: bool) -> list[Issue]:
        """The issues of ``value`` (empty when valid). On the input side, defaults are first filled into
        ``value`` itself: the service owns the decoded request, so no copy is needed."""
        if fill_defaults and self._defaults:
            _fill_defaults(self._schema, value)
        try:
            if self._fast.is_valid(value):
                return []
        except (ValueError, OverflowError):
            pass  # A value the fast validator cannot take (an integer past 64 bits): the slow path decides.
        issues: list[Issue] = []
        for error in self._validator.iter_errors(value):
            issues.extend(_issues_of(error))
        return issues


_cache: dict[int, tuple[Any, CompiledSchema]] = {}


def compiled(schema: Any) -> CompiledSchema:
    """The compiled form of a schema the index holds (cached by identity: the index lives as long as the
    service). Raises ``SchemaCompileError``."""
    hit = _cache.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    result = CompiledSchema(schema)
    _cache[id(schema)] = (schema, result)
    return result


def first_issue(issues: list[Issue]) -> str:
    """``at /minLength: must be >= 0`` for one-line messages."""
    if not issues:
        return "invalid"
    return f"at {issues[0]['instancePath'] or '/'}: {issues[0]['message']}"
