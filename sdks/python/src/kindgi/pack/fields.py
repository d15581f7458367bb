"""Field rules shared by the ``define_*`` functions: the same rules, in the same words, as the
TypeScript SDK's, raised as ``DefinitionError`` naming the field."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, NoReturn

from kindgi.pack.definitions import DefinitionError

_SEGMENT = r"[a-z0-9]+(?:-[a-z0-9]+)*"
NAMESPACED_ID = re.compile(rf"^{_SEGMENT}(?:\.{_SEGMENT})+$")
PACK_ID = re.compile(rf"^{_SEGMENT}(?:\.{_SEGMENT})*$")
SECRET_NAME = re.compile(r"^[A-Z_][A-Z0-9_]{0,127}$")
# Semantic Versioning 2.0.0, exact (no ranges).
SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)


def describe(value: Any) -> str:
    """A short description of a value for error messages (``"Echo"``, ``int 3``, ``nothing``)."""
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return f"bool {value}"
    if isinstance(value, int | float):
        return f"{type(value).__name__} {value}"
    if isinstance(value, list | tuple):
        return "a list"
    if callable(value):
        return "a function" if not isinstance(value, type) else f"the class {value.__name__}"
    if isinstance(value, Mapping):
        return "a dict"
    return f"a {type(value).__name__}"


class FieldChecker:
    """Checks one definition's fields, raising on the first problem with the field's name."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, field: str, problem: str) -> NoReturn:
        raise DefinitionError(self.source, field, problem)

    def namespaced_id(self, value: Any, field: str = "id") -> str:
        if not isinstance(value, str) or not NAMESPACED_ID.match(value):
            self.fail(field, f'"{field}" must be "<pack-id>.<name>" in kebab-case, got {describe(value)}')
        return value

    def non_empty_string(self, value: Any, field: str) -> str:
        if not isinstance(value, str) or value.strip() == "":
            self.fail(field, f'"{field}" must be a non-empty string, got {describe(value)}')
        return value

    def optional_string(self, value: Any, field: str) -> str | None:
        return None if value is None else self.non_empty_string(value, field)

    def optional_semver(self, value: Any, field: str = "version") -> str | None:
        if value is None:
            return None
        if not isinstance(value, str) or not SEMVER.match(value):
            self.fail(field, f'"{field}" must be an exact semantic version like "1.2.0", got {describe(value)}')
        return value

    def optional_bool(self, value: Any, field: str) -> bool | None:
        if value is not None and not isinstance(value, bool):
            self.fail(field, f'"{field}" must be True or False, got {describe(value)}')
        return value

    def optional_object(self, value: Any, field: str) -> dict[str, Any] | None:
        if value is None:
            return None
        if not isinstance(value, Mapping):
            self.fail(field, f'"{field}" must be a dict, got {describe(value)}')
        return self.json_object(value, field)

    def json_object(self, value: Mapping[Any, Any], field: str) -> dict[str, Any]:
        copied = self.json_value(value, field)
        assert isinstance(copied, dict)
        return copied

    def json_value(self, value: Any, field: str) -> Any:
        """A deep copy of ``value`` as JSON values, refusing what JSON cannot carry (NaN, sets, objects,
        non-string keys) with the path of the first such part."""
        if value is None or isinstance(value, str | bool | int):
            return value
        if isinstance(value, float):
            if not math.isfinite(value):
                self.fail(field, f'"{field}" must be a finite number, got {value}')
            return value
        if isinstance(value, list | tuple):
            return [self.json_value(item, f"{field}[{index}]") for index, item in enumerate(value)]
        if isinstance(value, Mapping):
            out: dict[str, Any] = {}
            for key, item in value.items():
                if not isinstance(key, str):
                    self.fail(field, f'"{field}" keys must be strings, got {describe(key)}')
                out[key] = self.json_value(item, f"{field}.{key}")
            return out
        self.fail(field, f'"{field}" must be JSON (dicts, lists, strings, numbers, booleans), got {describe(value)}')

    def optional_string_list(self, value: Any, field: str) -> tuple[str, ...] | None:
        if value is None:
            return None
        if isinstance(value, str) or not isinstance(value, list | tuple):
            self.fail(field, f'"{field}" must be a list of strings, got {describe(value)}')
        for index, item in enumerate(value):
            if not isinstance(item, str) or item == "":
                self.fail(f"{field}[{index}]", f'"{field}[{index}]" must be a non-empty string, got {describe(item)}')
        return tuple(value)

    def one_of(self, value: Any, allowed: tuple[str, ...], field: str) -> str:
        if not isinstance(value, str) or value not in allowed:
            self.fail(field, f'"{field}" must be one of {", ".join(allowed)}, got {describe(value)}')
        return value

    def extra(self, extra: Mapping[str, Any], known: frozenset[str]) -> dict[str, Any]:
        """More fields of the author's own (written to the index as given): JSON, and not a known field's
        index name spelled another way."""
        out: dict[str, Any] = {}
        for key, value in extra.items():
            if key in known:
                self.fail(key, f'"{key}" is a field of its own here; pass it by its Python name')
            if value is not None:
                out[key] = self.json_value(value, key)
        return out


def caller_file(depth: int) -> str | None:
    """The absolute path of the file ``depth`` frames up (the code that called ``define_*``)."""
    import os
    import sys

    try:
        frame = sys._getframe(depth + 1)
    except ValueError:
        return None
    name = frame.f_code.co_filename
    return os.path.abspath(name) if not name.startswith("<") else None
