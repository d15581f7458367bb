"""What a service serves, looked up by tool id (and version) and by check id, with the index's own
error messages."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kindgi.pack.serving.wire import WireError, pack_error


@dataclass
class CatalogTool:
    entry: dict[str, Any]
    module_path: str
    secrets: frozenset[str]


@dataclass
class CatalogCheck:
    check_id: str
    entry: dict[str, Any]
    module_path: str


def declared_secrets(entry: dict[str, Any]) -> frozenset[str]:
    needs = entry.get("needsSpec")
    secrets = needs.get("secrets") if isinstance(needs, dict) else None
    return frozenset(secrets) if isinstance(secrets, dict) else frozenset()


def _version_key(version: str) -> list[tuple[int, Any]]:
    # Numeric parts compare as numbers, as the TypeScript service's `localeCompare(..., {numeric: true})`.
    return [(0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", version) if part]


class Catalog:
    def __init__(self, index: dict[str, Any], resolve: Any) -> None:
        self.tools = [
            CatalogTool(entry, resolve(entry["modulePath"]), declared_secrets(entry))
            for entry in index["tools"]
            if "spec" not in entry
        ]
        self.checks: list[CatalogCheck] = []
        self._checks: dict[str, CatalogCheck] = {}
        for entry in index["guardrails"]:
            check = CatalogCheck(entry.get("checkId") or entry["id"], entry, resolve(entry["checkModulePath"]))
            if check.check_id not in self._checks:  # Duplicates keep the first, as the indexer does.
                self._checks[check.check_id] = check
                self.checks.append(check)
        self._tools: dict[str, list[CatalogTool]] = {}
        for tool in self.tools:
            self._tools.setdefault(tool.entry["id"], []).append(tool)

    @staticmethod
    def _versions(tools: list[CatalogTool]) -> str:
        versions = sorted((t.entry["version"] for t in tools if "version" in t.entry), key=_version_key)
        if not versions:
            return "unversioned"
        named = ", ".join(versions)
        return f"{named} and unversioned" if len(versions) < len(tools) else named

    def find_tool(self, ref: dict[str, Any]) -> CatalogTool:
        tool_id = ref["id"]
        found = self._tools.get(tool_id)
        if not found:
            raise WireError(pack_error("tool-not-in-pack", f'This pack has no tool "{tool_id}"', toolId=tool_id))
        version = ref.get("version")
        if version is None:
            if len(found) == 1:
                return found[0]
            message = (
                f'Tool "{tool_id}" has several versions in this pack ({self._versions(found)}); the caller named none'
            )
            raise WireError(pack_error("tool-version-mismatch", message, toolId=tool_id))
        for tool in found:
            if tool.entry.get("version") == version:
                return tool
        message = f'Tool "{tool_id}" is {self._versions(found)} in this pack; the caller asked for {version}'
        raise WireError(pack_error("tool-version-mismatch", message, toolId=tool_id))

    def find_check(self, check_id: str) -> CatalogCheck:
        check = self._checks.get(check_id)
        if check is None:
            raise WireError(pack_error("check-not-in-pack", f'This pack has no check "{check_id}"', checkId=check_id))
        return check

    def module_paths(self) -> list[tuple[str, str]]:
        """``(module path, the first id using it)``, once each, tools first."""
        owners: dict[str, str] = {}
        for tool in self.tools:
            owners.setdefault(tool.module_path, tool.entry["id"])
        for check in self.checks:
            owners.setdefault(check.module_path, check.check_id)
        return list(owners.items())
