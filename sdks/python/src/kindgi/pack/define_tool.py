"""``define_tool`` and the ``@tool`` decorator."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kindgi.pack.definitions import ToolContext, ToolDefinition
from kindgi.pack.fields import SECRET_NAME, FieldChecker, caller_file, describe
from kindgi.pack.handlers import (
    is_async_callable,
    keyword_caller,
    params_model,
    positional_caller,
    read_signature,
    single_model_param,
)
from kindgi.pack.schemas import SchemaProblem, Slot, slot_from

# Index names of the fields define_tool takes by their Python names: extra fields may not reuse them.
_INDEX_FIELDS = frozenset(
    {
        "id",
        "version",
        "description",
        "input",
        "output",
        "modulePath",
        "mutating",
        "effects",
        "needs",
        "needsSpec",
        "sandbox",
        "limits",
        "network",
        "handler",
    }
)


def define_tool(
    *,
    id: str,
    description: str,
    handler: Callable[..., Any],
    input: Any = None,
    output: Any = None,
    version: str | None = None,
    mutating: bool | None = None,
    effects: Sequence[Mapping[str, Any]] | None = None,
    needs: Any = None,
    needs_spec: Mapping[str, Any] | None = None,
    sandbox: str | None = None,
    limits: Mapping[str, Any] | None = None,
    network: Mapping[str, Any] | None = None,
    _defined_in: str | None = None,
    **extra: Any,
) -> ToolDefinition:
    """Defines a tool; bind the result to a module-level name in a file under ``tools/``.

    ``input``/``output`` are a Pydantic model class, a type (``list[str]``, a dataclass, a ``TypedDict``)
    or a JSON Schema dict. Without ``input``, the handler's annotations decide: one parameter annotated
    with a model takes the model; annotated parameters (``def add(a: int, b: int = 0)``) become the
    input's properties and arrive as keyword arguments; a bare ``handler(input, ctx)`` takes any object
    as a dict. Without ``output``, the return annotation (if any) is the output schema. A parameter named
    ``ctx``/``context`` (or annotated ``ToolContext``) receives the call's context. ``async def`` handlers
    run on the service's event loop, others in its thread pool. Other keyword arguments are index fields
    of your own, written as given. Raises ``DefinitionError`` naming the field.
    """
    check = FieldChecker("define_tool")
    check.namespaced_id(id)
    check.non_empty_string(description, "description")
    check.optional_semver(version)
    if not callable(handler):
        check.fail("handler", f'"handler" must be a function (input, ctx) -> output, got {describe(handler)}')
    binding = _bind_handler(check, handler, input, output)
    return ToolDefinition(
        id=id,
        description=description,
        version=version,
        input_schema=binding.input.schema if binding.input.schema is not None else {"type": "object"},
        output_schema=binding.output.schema if binding.output.schema is not None else {},
        handler=handler,
        is_async=is_async_callable(handler),
        mutating=check.optional_bool(mutating, "mutating"),
        effects=_effects(check, effects),
        needs=None if needs is None else check.json_value(needs, "needs"),
        needs_spec=_needs_spec(check, needs_spec),
        sandbox=check.optional_string(sandbox, "sandbox"),
        limits=check.optional_object(limits, "limits"),
        network=check.optional_object(network, "network"),
        extra=check.extra(extra, _INDEX_FIELDS),
        input_converter=binding.input.to_python,
        invoker=binding.invoker,
        output_converter=binding.output.to_json,
        defined_in=_defined_in or caller_file(1),
    )


def tool(
    *,
    id: str,
    description: str | None = None,
    **fields: Any,
) -> Callable[[Callable[..., Any]], ToolDefinition]:
    """``@tool(id="acme.add")`` over a function: ``define_tool`` with the function as handler and its
    docstring as the description unless one is given. The module attribute becomes the definition; the
    function stays reachable as ``.handler``."""

    def decorate(fn: Callable[..., Any]) -> ToolDefinition:
        text = description if description is not None else inspect.getdoc(fn)
        source = inspect.getsourcefile(fn) if inspect.isfunction(fn) else None
        return define_tool(id=id, description=text or "", handler=fn, _defined_in=source or caller_file(1), **fields)

    return decorate


class _Binding:
    def __init__(self, input: Slot, output: Slot, invoker: Callable[[Any, ToolContext], Any]) -> None:
        self.input = input
        self.output = output
        self.invoker = invoker


def _bind_handler(check: FieldChecker, handler: Callable[..., Any], input: Any, output: Any) -> _Binding:
    try:
        sig = read_signature(handler)
    except (TypeError, ValueError, NameError) as error:
        check.fail("handler", f"the handler's signature cannot be read: {error}")
    input_slot = _slot(check, input, "input", "input")
    if input is not None or not sig.params:
        invoker = positional_caller(handler, sig, 1 if sig.params else 0)
        bound_input = input_slot
    elif (model := single_model_param(sig)) is not None:
        bound_input = _slot(check, model, "input", "input")
        invoker = positional_caller(handler, sig, 1)
    elif all(param.name in sig.hints for param in sig.params):
        bound_input = _slot(check, params_model(sig, f"{getattr(handler, '__name__', 'tool')}_input"), "input", "input")
        call_kw = keyword_caller(handler, sig)
        _require_object(check, bound_input)
        return _Binding(bound_input, _output_slot(check, output, sig.returns), call_kw)
    else:
        # handler(input, ctx) without annotations: the input is any object, as a dict.
        invoker = positional_caller(handler, sig, 1)
        bound_input = input_slot
    _require_object(check, bound_input)

    def invoke(value: Any, ctx: ToolContext) -> Any:
        return invoker((value,), ctx)

    return _Binding(bound_input, _output_slot(check, output, sig.returns), invoke)


def _output_slot(check: FieldChecker, output: Any, returns: Any) -> Slot:
    if output is not None or returns is inspect.Parameter.empty or returns is Any:
        return _slot(check, output, "output", "output")
    return _slot(check, type(None) if returns is None else returns, "output", "output")


def _slot(check: FieldChecker, value: Any, side: Any, field: str) -> Slot:
    if (
        value is not None
        and not isinstance(value, bool | Mapping)
        and not (
            inspect.isclass(value)
            or hasattr(value, "__origin__")
            or hasattr(value, "__metadata__")
            or type(value).__module__ in ("typing", "types")
        )
    ):
        check.fail(field, f'"{field}" must be a Pydantic model, a type or a JSON Schema dict, got {describe(value)}')
    try:
        return slot_from(value, side)
    except SchemaProblem as problem:
        check.fail(field, str(problem))


def _require_object(check: FieldChecker, slot: Slot) -> None:
    schema = slot.schema
    if schema is None:
        return
    # A tool is called with an object of named arguments.
    if not isinstance(schema, dict):
        check.fail(
            "input",
            f'"input" must be an object schema (a tool is called with an object of arguments), got {describe(schema)}',
        )
    kind = schema.get("type")
    if kind != "object":
        got = 'a schema without "type": "object"' if kind is None else f"type {kind!r}"
        check.fail(
            "input", f'"input" must be an object schema (a tool is called with an object of arguments), got {got}'
        )


def _effects(check: FieldChecker, effects: Any) -> tuple[Mapping[str, Any], ...] | None:
    if effects is None:
        return None
    if isinstance(effects, str | Mapping) or not isinstance(effects, Sequence):
        check.fail("effects", f'"effects" must be a list of {{kind, resource?}}, got {describe(effects)}')
    out: list[Mapping[str, Any]] = []
    for index, effect in enumerate(effects):
        field = f"effects[{index}]"
        if not isinstance(effect, Mapping):
            check.fail(field, f'"{field}" must be a dict {{kind, resource?}}, got {describe(effect)}')
        check.non_empty_string(effect.get("kind"), f"{field}.kind")
        check.optional_string(effect.get("resource"), f"{field}.resource")
        out.append(check.json_object(effect, field))
    return tuple(out)


def _needs_spec(check: FieldChecker, needs_spec: Any) -> dict[str, Any] | None:
    if needs_spec is None:
        return None
    if not isinstance(needs_spec, Mapping):
        check.fail("needs_spec", f'"needs_spec" must be a dict, got {describe(needs_spec)}')
    out: dict[str, Any] = {}
    for key, value in needs_spec.items():
        if value is None:
            continue
        if key != "secrets":
            out[key] = check.json_value(value, f"needs_spec.{key}")
            continue
        if not isinstance(value, Mapping):
            check.fail(
                "needs_spec.secrets",
                f'"needs_spec.secrets" must be a dict of secret name → JSON Schema or type, got {describe(value)}',
            )
        secrets: dict[str, Any] = {}
        for name, schema in value.items():
            field = f"needs_spec.secrets.{name}"
            if not isinstance(name, str) or not SECRET_NAME.match(name):
                check.fail(
                    field,
                    f'secret name "{name}" must be 1 to 128 capital letters, digits and underscores, not starting with a digit (like "CITATOR_KEY")',
                )
            if schema is None:
                check.fail(field, f'"{field}" must be a JSON Schema dict or a type, got nothing')
            secrets[name] = _slot(check, schema, "input", field).schema
        out["secrets"] = secrets
    return out
