"""Which files of a pack are indexed: each kind's glob patterns, relative to the pack root."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kindgi.pack.canonical_json import utf16_key
from kindgi.pack.indexing.config import KINDS

# Never indexed, whatever the patterns say: caches, virtualenvs, package markers and tests.
_IGNORED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})
_IGNORED_FILE = re.compile(r"^(?:__init__\.py|conftest\.py|test_.*\.py|.*_test\.py)$")


@dataclass(frozen=True)
class DiscoveredFile:
    """A file to index: ``path`` relative to the pack root (forward slashes), the kind its folder says
    (``tools/x.py`` holds tools) and every kind whose patterns matched it."""

    path: str
    folder_kind: str | None
    matched_kinds: tuple[str, ...]


def discover(pack_dir: Path, patterns: dict[str, list[str]]) -> list[DiscoveredFile]:
    """Every file some kind's patterns match, in UTF-16 code unit order of their paths. Dot entries,
    ``__pycache__``, ``__init__.py``, ``conftest.py`` and test files are skipped."""
    by_path: dict[str, list[str]] = {}
    for kind in KINDS:
        for pattern in patterns[kind]:
            for expanded in _expand_braces(pattern):
                for file in pack_dir.glob(expanded):
                    relative = file.relative_to(pack_dir).as_posix()
                    if not file.is_file() or _ignored(relative):
                        continue
                    kinds = by_path.setdefault(relative, [])
                    if kind not in kinds:
                        kinds.append(kind)
    return [
        DiscoveredFile(path, folder_kind_of(path), tuple(k for k in KINDS if k in by_path[path]))
        for path in sorted(by_path, key=utf16_key)
    ]


def folder_kind_of(path: str) -> str | None:
    """The first of the four kind folders among a path's directories."""
    return next((part for part in path.split("/")[:-1] if part in KINDS), None)


def _ignored(relative: str) -> bool:
    parts = relative.split("/")
    if any(part.startswith(".") or part in _IGNORED_DIRS for part in parts):
        return True
    return bool(_IGNORED_FILE.match(parts[-1]))


def _expand_braces(pattern: str) -> list[str]:
    """``tools/**/*.{py,pyw}`` → one pattern per alternative (``pathlib`` globs have no braces)."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if match is None:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [p for alt in match.group(1).split(",") for p in _expand_braces(head + alt + tail)]
