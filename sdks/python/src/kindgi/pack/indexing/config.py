"""A Python pack's config: the ``[tool.kindgi]`` table of its ``pyproject.toml``."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kindgi.pack.canonical_json import utf16_key
from kindgi.pack.indexing.errors import IndexerError

KINDS = ("tools", "guardrails", "agents", "flows")
_LANGUAGES = ("node", "python", "java", "scala")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class PackConfig:
    """``pack.id``, ``pack.version`` (else ``[project].version``), discovery patterns per kind (the
    default ``<kind>/**/*.py`` where the table names none) and the declared env (both lists sorted)."""

    path: Path
    pack_id: str
    pack_version: str
    language: str
    discovery: dict[str, list[str]]
    env_required: list[str]
    env_optional: list[str]


def load_config(pack_dir: Path, config_path: Path | None = None) -> PackConfig | IndexerError:
    """Reads and checks the config; an ``IndexerError`` (``config-not-found``/``config-parse-failed``)
    when it is missing or wrong."""
    path = config_path or pack_dir / "pyproject.toml"
    if not path.is_file():
        return IndexerError(
            "config-not-found",
            f"No pack config in {pack_dir}: expected a pyproject.toml with a [tool.kindgi] table",
            str(path),
        )
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        return IndexerError("config-parse-failed", f"{path.name}: could not be read: {error}", str(path))
    table = doc.get("tool", {}).get("kindgi")
    if not isinstance(table, dict):
        return IndexerError("config-parse-failed", f"{path.name}: has no [tool.kindgi] table", str(path))
    problem_or_config = _check(table, doc.get("project") or {}, path)
    if isinstance(problem_or_config, str):
        return IndexerError("config-parse-failed", f"{path.name}: {problem_or_config}", str(path))
    return problem_or_config


def _check(table: dict[str, Any], project: dict[str, Any], path: Path) -> PackConfig | str:
    pack = table.get("pack")
    if not isinstance(pack, dict):
        return "`pack` must be an object with `id` and `version`"
    version = pack.get("version", project.get("version"))
    if not isinstance(pack.get("id"), str) or not pack["id"].strip():
        return "`pack.id` must be a non-empty string"
    if not isinstance(version, str) or not version.strip():
        return "`pack.version` must be a non-empty string"
    language = table.get("language", "python")
    if language not in _LANGUAGES:
        return f"`language` must be one of {', '.join(_LANGUAGES)}, got {language!r}"
    discovery = _discovery(table.get("discovery"))
    if isinstance(discovery, str):
        return discovery
    env = _env(table.get("env"))
    if isinstance(env, str):
        return env
    return PackConfig(path, pack["id"], version, language, discovery, env[0], env[1])


def _discovery(value: Any) -> dict[str, list[str]] | str:
    out = {kind: [f"{kind}/**/*.py"] for kind in KINDS}
    if value is None:
        return out
    if not isinstance(value, dict):
        return "`discovery` must be an object of glob lists keyed by tools, guardrails, agents, flows"
    for key, patterns in value.items():
        if key not in KINDS:
            return f"`discovery` takes only {', '.join(KINDS)}, not `{key}`"
        if not isinstance(patterns, list) or any(not isinstance(p, str) or not p for p in patterns):
            return f"`discovery.{key}` must be a list of glob patterns"
        out[key] = list(patterns)
    return out


def _env(value: Any) -> tuple[list[str], list[str]] | str:
    """The rules of ``validatePackEnvDeclaration`` (@kindgi/protocol), with its messages."""
    if value is None:
        return [], []
    if not isinstance(value, dict):
        return "`env` must be an object with `required` and/or `optional` lists of environment variable names"
    problems = [
        f"`env` takes only `required` and `optional`, not `{key}`"
        for key in value
        if key not in ("required", "optional")
    ]
    lists: dict[str, list[str]] = {"required": [], "optional": []}
    seen: dict[str, str] = {}
    for name_of_list in ("required", "optional"):
        names = value.get(name_of_list)
        if names is None:
            continue
        if not isinstance(names, list):
            problems.append(f"`env.{name_of_list}` must be a list of names")
            continue
        for name in names:
            if not isinstance(name, str) or not _ENV_NAME.match(name):
                problems.append(f'"{name}" in `env.{name_of_list}` isn\'t an environment variable name')
            elif name.startswith("KINDGI_"):
                problems.append(f'"{name}" in `env.{name_of_list}`: `KINDGI_*` names configure Kindgi, not the pack')
            elif seen.get(name) == name_of_list:
                problems.append(f'"{name}" is listed twice in `env.{name_of_list}`')
            elif name in seen:
                problems.append(f'"{name}" is in both `env.required` and `env.optional`')
            else:
                seen[name] = name_of_list
                lists[name_of_list].append(name)
    if problems:
        return "; ".join(problems)
    return sorted(lists["required"], key=utf16_key), sorted(lists["optional"], key=utf16_key)
