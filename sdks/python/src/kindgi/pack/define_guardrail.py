"""``define_guardrail``: a check over a turn's trace and the action taken when it fails."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from kindgi.pack.definitions import (
    GUARDRAIL_ACTIONS,
    GUARDRAIL_SEVERITIES,
    CheckContext,
    GuardrailDefinition,
    RunTrace,
)
from kindgi.pack.fields import FieldChecker, caller_file, describe
from kindgi.pack.handlers import is_async_callable, read_signature
from kindgi.pack.schemas import SchemaProblem, Slot, slot_from

_SCOPE_KEYS = ("when", "agents", "flows", "tenants")
_SCOPE_WHEN = ("always", "ci-only", "runtime-only")
_INDEX_FIELDS = frozenset(
    {
        "id",
        "name",
        "kind",
        "action",
        "severity",
        "scope",
        "checkModulePath",
        "checkId",
        "configSchema",
        "config",
        "sandbox",
        "limits",
        "network",
        "check",
        "evaluate",
    }
)


def define_guardrail(
    *,
    id: str,
    check: Callable[..., Any] | str,
    on_violation: str | Mapping[str, Any] | None = None,
    action: str | Mapping[str, Any] | None = None,
    severity: str = "error",
    scope: Mapping[str, Any] | None = None,
    config: Mapping[str, Any] | None = None,
    config_schema: Any = None,
    check_id: str | None = None,
    kind: str = "zero-llm",
    name: str | None = None,
    description: str | None = None,
    sandbox: str | None = None,
    limits: Mapping[str, Any] | None = None,
    network: Mapping[str, Any] | None = None,
    **extra: Any,
) -> GuardrailDefinition:
    """Defines a guardrail; bind the result to a module-level name in a file under ``guardrails/``.

    ``check`` is a function ``(config, trace, ctx) -> CheckResult | dict | bool`` (it may take just
    ``(config, trace)`` or ``(trace)``; ``async def`` allowed), or the id of a built-in check
    (``"must-cite"``). ``on_violation`` (or ``action``) is an action name, or a dict with
    ``"on-violation"`` and settings of the action. ``config_schema`` is a Pydantic model class, a type or a
    JSON Schema dict; with a model, the check receives the config as that model. ``config`` holds the
    default values, checked against the schema here. Raises ``DefinitionError`` naming the field.
    """
    checker = FieldChecker("define_guardrail")
    checker.namespaced_id(id)
    checker.optional_string(name, "name")
    checker.non_empty_string(kind, "kind")
    normalised_action = _action(checker, on_violation, action)
    checker.one_of(severity, GUARDRAIL_SEVERITIES, "severity")
    slot = _config_slot(checker, config_schema)
    values = checker.optional_object(config, "config")
    if values is not None:
        _check_config(checker, slot, values)
    checker.optional_string(check_id, "check_id")
    inline, builtin = _check(checker, check)
    extra_fields = checker.extra(extra, _INDEX_FIELDS)
    if description is not None:
        extra_fields["description"] = checker.non_empty_string(description, "description")
    return GuardrailDefinition(
        id=id,
        kind=kind,
        action=normalised_action,
        severity=severity,
        check_id=check_id or builtin or id,
        explicit_check_id=check_id is not None,
        check=check if inline is not None and not isinstance(check, str) else None,
        builtin_check=builtin,
        is_async=inline is not None and not isinstance(check, str) and is_async_callable(check),
        name=name,
        scope=_scope(checker, scope),
        config=values,
        config_schema=slot.schema,
        sandbox=checker.optional_string(sandbox, "sandbox"),
        limits=checker.optional_object(limits, "limits"),
        network=checker.optional_object(network, "network"),
        extra=extra_fields,
        config_converter=slot.to_python,
        evaluator=inline,
        defined_in=caller_file(1),
    )


def _action(check: FieldChecker, on_violation: Any, action: Any) -> dict[str, Any]:
    names = ", ".join(GUARDRAIL_ACTIONS)
    if on_violation is not None and action is not None:
        check.fail("on_violation", 'give the action once: as "on_violation" or as "action", not both')
    given = on_violation if on_violation is not None else action
    field = "action" if on_violation is None and action is not None else "on_violation"
    if given is None:
        check.fail("on_violation", f'"on_violation" is required: one of {names}, or a dict with "on-violation"')
    if isinstance(given, str):
        return {"on-violation": check.one_of(given, GUARDRAIL_ACTIONS, field)}
    if not isinstance(given, Mapping):
        check.fail(field, f'"{field}" must be one of {names} or a dict, got {describe(given)}')
    check.one_of(given.get("on-violation"), GUARDRAIL_ACTIONS, f"{field}.on-violation")
    return check.json_object(given, field)


def _scope(check: FieldChecker, scope: Any) -> dict[str, Any] | None:
    if scope is None:
        return None
    if not isinstance(scope, Mapping):
        check.fail("scope", f'"scope" must be a dict {{when?, agents?, flows?, tenants?}}, got {describe(scope)}')
    for key in scope:
        if key not in _SCOPE_KEYS:
            check.fail(f"scope.{key}", f'"scope" takes only when, agents, flows and tenants, not "{key}"')
    out: dict[str, Any] = {}
    if scope.get("when") is not None:
        out["when"] = check.one_of(scope["when"], _SCOPE_WHEN, "scope.when")
    for key in ("agents", "flows", "tenants"):
        names = check.optional_string_list(scope.get(key), f"scope.{key}")
        if names is not None:
            out[key] = list(names)
    return out


def _config_slot(check: FieldChecker, schema: Any) -> Slot:
    try:
        return slot_from(schema, "input")
    except SchemaProblem as problem:
        check.fail("config_schema", str(problem))


def _check_config(check: FieldChecker, slot: Slot, values: dict[str, Any]) -> None:
    """The default config must satisfy its own schema (the TypeScript indexer refuses it otherwise)."""
    if slot.schema is None:
        return
    import jsonschema  # only when a config has a schema

    validator = jsonschema.Draft202012Validator(slot.schema)
    problem = next(iter(validator.iter_errors(values)), None)
    if problem is not None:
        where = "".join(f"/{part}" for part in problem.absolute_path) or "/"
        check.fail("config", f'"config" does not match "config_schema" at {where}: {problem.message}')


def _check(check: FieldChecker, spec: Any) -> tuple[Callable[[Any, RunTrace, CheckContext], Any] | None, str | None]:
    if isinstance(spec, str):
        return None, check.non_empty_string(spec, "check")
    if not callable(spec):
        check.fail(
            "check",
            f'"check" must be a function (config, trace, ctx) -> result or a built-in check id, got {describe(spec)}',
        )
    try:
        sig = read_signature(spec)
    except (TypeError, ValueError, NameError) as error:
        check.fail("check", f"the check's signature cannot be read: {error}")
    values = len(sig.params)
    if values > 2 or any(
        p.default is inspect.Parameter.empty and p.kind is inspect.Parameter.KEYWORD_ONLY for p in sig.params
    ):
        check.fail("check", '"check" takes (config, trace, ctx), (config, trace) or (trace)')
    context_name = sig.context_name
    positional = sig.context_positional

    def evaluate(config: Any, trace: RunTrace, ctx: CheckContext) -> Any:
        args: tuple[Any, ...] = (config, trace) if values == 2 else (trace,) if values == 1 else ()
        if context_name is None:
            return spec(*args)
        if positional:
            return spec(*args, ctx)
        return spec(*args, **{context_name: ctx})

    return evaluate, None
