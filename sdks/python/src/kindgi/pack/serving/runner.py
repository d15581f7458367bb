"""Running one tool call or one check: the protocol's sequence (validate, import, resolve, convert, call,
convert back, validate), every failure an ``error`` message, never an exception.

A sync handler's part of the sequence (convert, call, convert back, validate) runs in one worker-thread
hop; an async handler's on the loop."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from kindgi.pack.definitions import (
    CheckContext,
    ConversionError,
    GuardrailDefinition,
    RunTrace,
    ToolContext,
    ToolDefinition,
)
from kindgi.pack.modules import definitions_in, load_pack_module
from kindgi.pack.serving.validation import SchemaCompileError, compiled, first_issue
from kindgi.pack.serving.wire import WireError, describe_thrown, pack_error, wire_cause

Outcome = dict[str, Any]
"""A response message: ``result``, ``check-result`` or ``error``."""


class Modules:
    """The pack's modules, each imported once (the import's failure is kept too: it is not retried)."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._loaded: dict[str, ModuleType | BaseException] = {}
        # (module path, id, version) → the definition found there: looked up once, not per call.
        self.found: dict[tuple[str, str, str | None], Any] = {}

    def load(self, module_path: str) -> ModuleType:
        hit = self._loaded.get(module_path)
        if hit is None:
            try:
                hit = load_pack_module(self._root, module_path)
            except Exception as error:
                hit = error
            self._loaded[module_path] = hit
        if isinstance(hit, BaseException):
            raise hit
        return hit


def _not_json(value: Any, path: str = "") -> str | None:
    """Where ``value`` is not JSON data (a JSON Pointer and why), or ``None``; iterative, depth-limited."""
    stack: list[tuple[Any, str, int]] = [(value, path, 0)]
    while stack:
        current, where, depth = stack.pop()
        if depth > 256:
            return f"{where}: nesting deeper than 256"
        if current is None or isinstance(current, str | bool | int):
            continue
        if isinstance(current, float):
            if not math.isfinite(current):
                return f"{where}: the number {current}"
        elif isinstance(current, dict):
            for key, item in current.items():
                if not isinstance(key, str):
                    return f"{where}: a key that is not a string ({key!r})"
                stack.append((item, f"{where}/{key.replace('~', '~0').replace('/', '~1')}", depth + 1))
        elif isinstance(current, list | tuple):
            stack.extend((item, f"{where}/{at}", depth + 1) for at, item in enumerate(current))
        else:
            return f"{where}: a {type(current).__name__}"
    return None


def _output_problem(subject: dict[str, str], what: str, where: str) -> Outcome:
    path, _, reason = where.partition(": ")
    at = f" at {path}" if path else ""
    issues = [{"instancePath": path, "message": f"must be a JSON value, got {reason}"}]
    return pack_error("output-validation-failed", f"{what} JSON cannot carry{at}: {reason}", **subject, issues=issues)


class ToolRun:
    """One tool call's sequence, split where the thread hop goes."""

    def __init__(self, tool_id: str, entry: dict[str, Any], module_path: str, definition: ToolDefinition) -> None:
        self.tool_id = tool_id
        self.entry = entry
        self.module_path = module_path
        self.definition = definition

    def finish(self, result: Any) -> Outcome:
        """The handler's result → a ``result`` message, or the output error."""
        subject = {"toolId": self.tool_id}
        try:
            output = self.definition.convert_output(result)
        except ConversionError as error:
            return pack_error("output-validation-failed", str(error), **subject, issues=error.issues)
        where = _not_json(output)
        if where is not None:
            return _output_problem(subject, f'Tool "{self.tool_id}" handler produced output that', where)
        try:
            issues = compiled(self.entry["output"]).validate(output, fill_defaults=False)
        except SchemaCompileError as error:
            message = f'Tool "{self.tool_id}" output schema failed to compile: {error}'
            return pack_error("output-validation-failed", message, **subject)
        if issues:
            message = f'Tool "{self.tool_id}" handler produced output that failed validation'
            return pack_error("output-validation-failed", message, **subject, issues=issues)
        return {"v": 2, "kind": "result", "output": output}

    def thrown(self, error: BaseException) -> Outcome:
        message = f'Handler for tool "{self.tool_id}" threw: {describe_thrown(error)}'
        return pack_error("handler-throw", message, toolId=self.tool_id, cause=wire_cause(error))

    def run_sync(self, converted: Any, ctx: ToolContext) -> Outcome:
        """The worker thread's part: call, convert back, validate."""
        try:
            result = self.definition.invoke(converted, ctx)
        except Exception as error:
            return self.thrown(error)
        return self.finish(result)


def _find_tool(module: ModuleType, entry: dict[str, Any]) -> ToolDefinition | None:
    candidates = [d for _, d in definitions_in(module) if isinstance(d, ToolDefinition) and d.id == entry["id"]]
    for definition in candidates:
        if definition.version == entry.get("version"):
            return definition
    return candidates[0] if candidates else None


def _find_check(module: ModuleType, check_id: str) -> GuardrailDefinition | None:
    for _, definition in definitions_in(module):
        if isinstance(definition, GuardrailDefinition) and definition.check_id == check_id:
            return definition
    return None


def prepare_tool(modules: Modules, entry: dict[str, Any], module_path: str, value: Any) -> tuple[ToolRun, Any]:
    """Validates the input (defaults filled in), imports, resolves and converts: ``(run, converted input)``.
    Raises ``WireError`` with the error to answer."""
    tool_id = entry["id"]
    subject = {"toolId": tool_id}
    try:
        input_schema = compiled(entry["input"])
        compiled(entry["output"])
    except SchemaCompileError as error:
        raise WireError(
            pack_error(
                "input-validation-failed", f'Tool "{tool_id}" input schema failed to compile: {error}', **subject
            )
        ) from None
    issues = input_schema.validate(value, fill_defaults=True)
    if issues:
        raise WireError(
            pack_error("input-validation-failed", f'Tool "{tool_id}" input failed validation', **subject, issues=issues)
        )
    key = (module_path, tool_id, entry.get("version"))
    definition = modules.found.get(key)
    if definition is None:
        try:
            module = modules.load(module_path)
        except Exception as error:
            message = f"Failed to import handler module '{module_path}': {describe_thrown(error)}"
            raise WireError(pack_error("handler-import-failed", message, **subject, cause=wire_cause(error))) from None
        definition = modules.found[key] = _find_tool(module, entry)
    if definition is None:
        message = (
            f"Module '{module_path}' has no handler for tool \"{tool_id}\": define it at module level with "
            "define_tool(...) or @tool"
        )
        raise WireError(pack_error("handler-shape-invalid", message, **subject))
    try:
        converted = definition.convert_input(value)
    except ConversionError as error:
        raise WireError(
            pack_error(
                "input-validation-failed", f'Tool "{tool_id}" input failed validation', **subject, issues=error.issues
            )
        ) from None
    except Exception as error:
        raise WireError(ToolRun(tool_id, entry, module_path, definition).thrown(error)) from None
    return ToolRun(tool_id, entry, module_path, definition), converted


class CheckRun:
    def __init__(self, check_id: str, definition: GuardrailDefinition) -> None:
        self.check_id = check_id
        self.definition = definition

    def thrown(self, error: BaseException) -> Outcome:
        message = f'Check "{self.check_id}" evaluate() threw: {describe_thrown(error)}'
        return pack_error("handler-throw", message, checkId=self.check_id, cause=wire_cause(error))

    def finish(self, result: Any) -> Outcome:
        subject = {"checkId": self.check_id}
        converted = GuardrailDefinition.convert_result(result)
        if converted is None:
            message = f'Check "{self.check_id}" evaluate() returned {type(result).__name__}, not a check result'
            return pack_error("check-shape-invalid", message, **subject)
        where = _not_json(converted)
        if where is not None:
            return _output_problem(subject, f'Check "{self.check_id}" evaluate() returned a result that', where)
        return {"v": 2, "kind": "check-result", "result": converted}

    def run_sync(self, config: Any, trace: RunTrace, ctx: CheckContext) -> Outcome:
        try:
            result = self.definition.evaluate(config, trace, ctx)
        except Exception as error:
            return self.thrown(error)
        return self.finish(result)


def prepare_check(
    modules: Modules, check_id: str, entry: dict[str, Any], module_path: str, config: Any
) -> tuple[CheckRun, Any]:
    """Validates the config as sent (no defaults), imports, resolves, converts: ``(run, converted config)``."""
    subject = {"checkId": check_id}
    schema = entry.get("configSchema")
    if schema is not None:
        try:
            issues = compiled(schema).validate(config, fill_defaults=False)
        except SchemaCompileError as error:
            raise WireError(
                pack_error(
                    "input-validation-failed", f'Check "{check_id}" config schema failed to compile: {error}', **subject
                )
            ) from None
        if issues:
            message = f'Check "{check_id}" config failed validation {first_issue(issues)}'
            raise WireError(pack_error("input-validation-failed", message, **subject, issues=issues))
    try:
        module = modules.load(module_path)
    except Exception as error:
        message = f"Failed to import check module '{module_path}': {describe_thrown(error)}"
        raise WireError(pack_error("handler-import-failed", message, **subject, cause=wire_cause(error))) from None
    definition = _find_check(module, check_id)
    if definition is None or (definition.check is None and definition.evaluator is None):
        message = (
            f"Module '{module_path}' has no check \"{check_id}\": define it at module level with define_guardrail(...)"
        )
        raise WireError(pack_error("check-shape-invalid", message, **subject))
    try:
        converted = definition.convert_config(config)
    except ConversionError as error:
        message = f'Check "{check_id}" config failed validation {first_issue(error.issues)}'
        raise WireError(pack_error("input-validation-failed", message, **subject, issues=error.issues)) from None
    except Exception as error:
        raise WireError(CheckRun(check_id, definition).thrown(error)) from None
    return CheckRun(check_id, definition), converted


async def run_async(call: Callable[[], Any], run: ToolRun | CheckRun) -> Outcome:
    """An async handler or check on the loop; its cancellation (deadline, disconnect) ends it here."""
    try:
        result = await call()
    except asyncio.CancelledError:
        raise
    except Exception as error:
        return run.thrown(error)
    return run.finish(result)
