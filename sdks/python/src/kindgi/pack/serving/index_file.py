"""Reading a pack's ``index.json`` (envelope ``v`` 1) and an optional bundle map."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _problems(value: dict[str, Any]) -> list[str]:
    problems = []
    for name in ("packId", "packVersion", "artifactVersion"):
        if not isinstance(value.get(name), str) or value[name] == "":
            problems.append(f"`{name}` must be a non-empty string")
    for listing, path_field in (("tools", "modulePath"), ("guardrails", "checkModulePath")):
        entries = value.get(listing, [])
        if not isinstance(entries, list):
            problems.append(f"`{listing}` must be a list")
            continue
        for at, entry in enumerate(entries):
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or entry["id"] == "":
                problems.append(f"`{listing}[{at}]` needs a string `id`")
            elif listing == "tools" and "spec" in entry:
                continue
            elif not isinstance(entry.get(path_field), str) or entry[path_field] == "":
                problems.append(f"`{listing}[{at}]` ({entry['id']}) needs a string `{path_field}`")
            elif "version" in entry and not isinstance(entry["version"], str):
                problems.append(f"`{listing}[{at}]` ({entry['id']}) has a `version` that is not a string")
    return problems


def read_index(path: Path) -> tuple[dict[str, Any] | None, list[str]]:
    """``(index, [])`` or ``(None, problems)``, each "Cannot read the pack index: <path>: …"."""

    def fail(reason: str) -> str:
        return f"Cannot read the pack index: {path}: {reason}"

    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError) as error:
        return None, [fail(str(error))]
    if not isinstance(value, dict):
        return None, [fail("it is not a JSON object")]
    if value.get("v") != 1 or isinstance(value.get("v"), bool):
        shown = json.dumps(value["v"]) if "v" in value else "nothing"
        return None, [fail(f"expected `v` 1, got {shown}")]
    problems = _problems(value)
    if problems:
        return None, [fail(problem) for problem in problems]
    for listing in ("tools", "guardrails", "agents", "flows"):
        value.setdefault(listing, [])
    return value, []


def read_bundle_map(path: Path) -> tuple[dict[str, str] | None, list[str]]:
    """A JSON object from index module paths to the files to load instead (relative, inside the root)."""
    where = f"Cannot read the bundle map: {path}"
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError) as error:
        return None, [f"{where}: {error}"]
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        return None, [f"{where}: it must be a JSON object of module paths to paths"]
    for source, target in value.items():
        for text in (source, target):
            if text.startswith("/") or ".." in text.split("/"):
                return None, [f"{where}: {json.dumps(text)} must be a relative path inside its root"]
    return value, []
