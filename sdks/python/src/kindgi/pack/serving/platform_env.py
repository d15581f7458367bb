"""Which environment variables pack code may see: the names a pack declares, ``KINDGI_*`` names, and
the platform names of ``specs/platform-env.json`` (the one table every pack service reads; the package
carries a copy in ``kindgi/pack/specs/``, else a source checkout's ``specs/`` is read)."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

_TABLE = "platform-env.json"


def _table_path() -> Path:
    packaged = Path(__file__).parent.parent / "specs" / _TABLE
    if packaged.is_file():
        return packaged
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "specs" / _TABLE
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"{_TABLE} is missing from the kindgi package (and no specs/ folder is above it)")


@functools.cache
def platform_table() -> tuple[frozenset[str], tuple[str, ...]]:
    """``(names, prefixes)`` of the platform variables the env filter always keeps."""
    table = json.loads(_table_path().read_text("utf-8"))
    return frozenset(table["names"]), tuple(table["prefixes"])


def is_platform_name(name: str) -> bool:
    names, prefixes = platform_table()
    return name.startswith("KINDGI_") or name in names or name.startswith(prefixes)


def _utf16_key(name: str) -> bytes:
    # Sorted by UTF-16 code unit, as JavaScript sorts.
    return name.encode("utf-16-be")


def declared_names(declaration: Mapping[str, Any] | None) -> set[str]:
    declaration = declaration or {}
    return {*declaration.get("required", []), *declaration.get("optional", [])}


def undeclared_env(declaration: Mapping[str, Any] | None, env: Mapping[str, str]) -> list[str]:
    """The names the env filter drops, sorted: not declared, not ``KINDGI_*``, not a platform name."""
    declared = declared_names(declaration)
    return sorted((n for n in env if n not in declared and not is_platform_name(n)), key=_utf16_key)


def missing_env(declaration: Mapping[str, Any] | None, env: Mapping[str, str]) -> list[str]:
    """Required names unset or empty (whitespace counts as set), sorted."""
    required = (declaration or {}).get("required", [])
    return sorted((n for n in required if env.get(n, "") == ""), key=_utf16_key)
