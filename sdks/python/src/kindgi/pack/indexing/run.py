"""``run_indexer``: config → discovery → import → entries → a validated, canonical ``index.json``."""

from __future__ import annotations

import re
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kindgi.pack.canonical_json import canonical_json, utf16_key
from kindgi.pack.definitions import AgentDefinition, Definition, FlowDefinition, GuardrailDefinition, ToolDefinition
from kindgi.pack.indexing.config import KINDS, PackConfig, load_config
from kindgi.pack.indexing.discovery import DiscoveredFile, discover
from kindgi.pack.indexing.entries import RESERVED_CHECK_IDS, agent_entry, flow_entry, guardrail_entry, tool_entry
from kindgi.pack.indexing.errors import IndexerError, IndexerFileError, file_error
from kindgi.pack.indexing.output import (
    index_problems,
    iso_millis,
    next_artifact_version,
    parse_published_at,
    write_atomic,
)
from kindgi.pack.modules import definitions_in, load_pack_module

_KIND_OF: dict[type, str] = {
    ToolDefinition: "tools",
    GuardrailDefinition: "guardrails",
    AgentDefinition: "agents",
    FlowDefinition: "flows",
}
_NOUN = {"tools": "a tool", "guardrails": "a guardrail", "agents": "an agent", "flows": "a flow"}


@dataclass(frozen=True)
class RunOptions:
    """What to index and where to write it (paths absolute or relative to the working directory)."""

    pack_dir: Path
    config_path: Path | None = None
    output_path: Path | None = None
    artifact_version: str | None = None
    published_at: str | None = None


@dataclass(frozen=True)
class IndexerReport:
    output_path: Path
    counts: dict[str, int]
    warnings: list[dict[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"outputPath": str(self.output_path), "counts": self.counts, "warnings": self.warnings}


@dataclass
class _Found:
    file: str
    kind: str
    entry: dict[str, Any]
    shipped_check: str | None = None


def run_indexer(options: RunOptions) -> IndexerReport | IndexerError:
    """Indexes a Python pack. Fails loud: when any discovered file fails, the error lists every failing
    file and nothing is written. Returns the error rather than raising it."""
    try:
        return _index(options)
    except Exception as error:  # the guarantee for the unexpected: every expected failure is typed
        return IndexerError("output-write-failed", f"indexing stopped unexpectedly: {type(error).__name__}: {error}")


def _index(options: RunOptions) -> IndexerReport | IndexerError:
    pack_dir = options.pack_dir.resolve()
    published = parse_published_at(options.published_at)
    if published is None:
        return IndexerError(
            "options-invalid",
            f'publishedAt must be an ISO 8601 time such as 2026-09-20T14:32:07.104Z, got "{options.published_at}"',
        )
    if options.artifact_version is not None and not re.fullmatch(r"\S+", options.artifact_version):
        return IndexerError(
            "options-invalid",
            f'artifactVersion must be a non-empty string without spaces, got "{options.artifact_version}"',
        )
    config = load_config(pack_dir, options.config_path.resolve() if options.config_path else None)
    if isinstance(config, IndexerError):
        return config
    if config.language != "python":
        return IndexerError(
            "language-mismatch",
            f"{config.path} declares a {config.language} pack: index it with that language's indexer, not python -m kindgi.pack index",
            str(config.path),
        )
    files = discover(pack_dir, config.discovery)
    if not files:
        listed = "; ".join(f"{kind}: {', '.join(config.discovery[kind])}" for kind in KINDS)
        return IndexerError(
            "discovery-empty",
            f"Discovery found nothing to index: no file under {pack_dir} matches the patterns ({listed})",
        )
    errors: list[IndexerFileError] = []
    found: list[_Found] = []
    for file in files:
        result = _index_file(pack_dir, file, config)
        if isinstance(result, IndexerFileError):
            errors.append(result)
        else:
            found.extend(result)
    lists = _collect(found, errors)
    if errors:
        return _files_failed(errors)
    return _write(options, pack_dir, config, lists, published, _warnings(found, config.pack_id))


def _index_file(pack_dir: Path, file: DiscoveredFile, config: PackConfig) -> list[_Found] | IndexerFileError:
    try:
        module = load_pack_module(pack_dir, file.path)
    except BaseException as error:  # a pack file may raise anything, SystemExit included
        if isinstance(error, KeyboardInterrupt):
            raise
        cause = "".join(traceback.format_exception_only(type(error), error)).strip()
        return file_error("file-import-failed", file.path, f"import failed: {cause}")
    definitions = definitions_in(module, pack_dir)
    if not definitions:
        return file_error(
            "no-default-export",
            file.path,
            "defines no tool, guardrail, agent or flow: bind `define_tool(...)` (or define_guardrail, define_agent, define_flow, or a @tool function) to a module-level name",
        )
    out: list[_Found] = []
    for name, definition in definitions:
        kind = _KIND_OF[type(definition)]
        problem = _kind_problem(file, kind, name)
        if problem is not None:
            return problem
        entry = _entry(definition, file.path, config.pack_version)
        if isinstance(definition, GuardrailDefinition) and definition.check is not None:
            if definition.check_id in RESERVED_CHECK_IDS:
                return file_error(
                    "reserved-check-id",
                    file.path,
                    f'guardrail "{definition.id}" ships its own check under the built-in check id "{definition.check_id}", which the runtime would replace with the built-in; name it "{config.pack_id}.checks.<name>", or use the built-in with `check="{definition.check_id}"`',
                )
            out.append(_Found(file.path, kind, entry, definition.check_id))
        else:
            out.append(_Found(file.path, kind, entry))
    return out


def _kind_problem(file: DiscoveredFile, kind: str, name: str) -> IndexerFileError | None:
    if file.folder_kind is not None:
        if kind == file.folder_kind:
            return None
        return file_error(
            "kind-mismatch",
            file.path,
            f"files under {file.folder_kind}/ must define {_NOUN[file.folder_kind]}, but `{name}` is {_NOUN[kind]}",
        )
    if kind in file.matched_kinds:
        return None
    patterns = ", ".join(f"discovery.{k}" for k in file.matched_kinds)
    return file_error(
        "ambiguous-kind",
        file.path,
        f"matched by {patterns} outside the tools/, guardrails/, agents/ and flows/ folders, and `{name}` is {_NOUN[kind]}",
    )


def _entry(definition: Definition, module_path: str, pack_version: str) -> dict[str, Any]:
    if isinstance(definition, ToolDefinition):
        return tool_entry(definition, module_path)
    if isinstance(definition, GuardrailDefinition):
        return guardrail_entry(definition, module_path)
    if isinstance(definition, AgentDefinition):
        return agent_entry(definition, module_path, pack_version)
    return flow_entry(definition, module_path, pack_version)


def _collect(found: list[_Found], errors: list[IndexerFileError]) -> dict[str, list[dict[str, Any]]]:
    lists: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    first: dict[tuple[str, str], str] = {}
    for item in found:
        key = (item.kind, item.entry["id"])
        if key in first:
            # Files come in path order, so which one is kept does not depend on the filesystem.
            errors.append(
                IndexerFileError(
                    "manifest-validation-failed",
                    item.file,
                    f'{item.file}: {item.kind[:-1]} id "{item.entry["id"]}" is already defined by {first[key]}; the first is kept',
                )
            )
            continue
        first[key] = item.file
        lists[item.kind].append(item.entry)
    for kind in KINDS:
        lists[kind].sort(key=lambda entry: utf16_key(entry["id"]))
    return lists


def _files_failed(errors: list[IndexerFileError]) -> IndexerError:
    ordered = sorted(errors, key=lambda e: utf16_key(e.file))
    listed = ", ".join(f"{e.file} ({e.code})" for e in ordered)
    message = f"{len(ordered)} file(s) could not be indexed, so no index was written: {listed}"
    return IndexerError(ordered[0].code, message, ordered[0].file, tuple(ordered))


def _warnings(found: list[_Found], pack_id: str) -> list[dict[str, str]]:
    warnings = []
    for item in found:
        check_id = item.shipped_check
        if check_id is None or check_id.startswith(f"{pack_id}."):
            continue
        warnings.append(
            {
                "code": "check-id-unprefixed",
                "file": item.file,
                "checkId": check_id,
                "message": f'{item.file}: check "{check_id}" does not start with the pack id "{pack_id}."; packs in a tenant share one space of check names, so name it "{pack_id}.checks.<name>"',
            }
        )
    return warnings


def _write(
    options: RunOptions,
    pack_dir: Path,
    config: PackConfig,
    lists: dict[str, list[dict[str, Any]]],
    published: Any,
    warnings: list[dict[str, str]],
) -> IndexerReport | IndexerError:
    output = (pack_dir / (options.output_path or Path("dist/index.json"))).resolve()
    index: dict[str, Any] = {
        "v": 1,
        "packId": config.pack_id,
        "packVersion": config.pack_version,
        "artifactVersion": options.artifact_version or next_artifact_version(output, published),
        "publishedAt": iso_millis(published),
        **lists,
    }
    if config.env_required or config.env_optional:
        index["env"] = {"required": config.env_required, "optional": config.env_optional}
    try:
        text = canonical_json(index)
    except (TypeError, ValueError) as error:
        return IndexerError("manifest-validation-failed", f"the index is not JSON: {error}")
    problems = index_problems(index)
    if problems:
        return IndexerError(
            "manifest-validation-failed",
            f"the index does not match specs/pack-index.schema.json: {'; '.join(problems[:10])}",
        )
    try:
        write_atomic(output, text)
    except OSError as error:
        return IndexerError("output-write-failed", f"Could not write {output}: {error}", str(output))
    return IndexerReport(output, {kind: len(lists[kind]) for kind in KINDS}, warnings)
