"""What ``define_tool``/``define_guardrail``/``define_agent``/``define_flow`` return, and what the service
hands to pack code.

This module is the contract between the authoring half of the SDK (which builds these objects and the
indexer, which writes them to ``index.json``) and the serving half (which loads a pack's modules, finds
these objects and runs them). Definitions are frozen dataclasses holding checked, normalised data: every
schema is already a JSON Schema 2020-12 dict, every action already ``{"on-violation": name, ...}``.

How the service runs a tool call (the intended sequence):

1. find the ``ToolDefinition`` whose ``id`` (and ``version``, when the caller names one) matches;
2. validate the wire ``input`` against ``input_schema`` (filling ``default`` values); failures are
   ``input-validation-failed`` with Ajv-shaped issues;
3. ``converted = tool.convert_input(value)``: turns the JSON into what the handler takes (a Pydantic model
   instance, keyword arguments, or the dict itself); a ``ConversionError`` is ``input-validation-failed``
   with its ``issues`` (no ``keyword``, as the protocol allows for pydantic failures);
4. ``result = tool.invoke(converted, ctx)``: if ``tool.is_async`` it returns an awaitable to run on the
   loop; otherwise call it in a worker thread. What it raises is ``handler-throw`` (a ``Cancelled`` raised
   by ``ctx.raise_if_cancelled()`` is the call's cancellation, whose code the service already knows);
5. ``out = tool.convert_output(result)``: turns a model/dataclass/etc. into JSON values (a
   ``ConversionError`` is ``output-validation-failed``), then validate ``out`` against ``output_schema``.

A guardrail check is the same with ``convert_config`` / ``evaluate`` / ``convert_result``.

Every definition's ``defined_in`` is the absolute path of the file whose code called ``define_*`` (for
``@tool``, the function's file): ``kindgi.pack.modules.definitions_in`` uses it so that a definition a
file merely imports (an agent file importing a tool to list it) is not taken for one of its own.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

JsonSchema = dict[str, Any] | bool
"""A JSON Schema (Draft 2020-12) document: an object or ``True``/``False``."""

LogLevel = Literal["debug", "info", "warn", "error"]
LogSink = Callable[[LogLevel, str, Mapping[str, Any]], None]
"""Where ``ctx.log`` lines go: ``sink(level, message, fields)``. The service injects one per call that
writes a protocol log record carrying the call's ids (it must not raise, and may be called from any
thread)."""

GUARDRAIL_ACTIONS: tuple[str, ...] = ("halt", "retry", "escalate", "log-only", "compensate")
GUARDRAIL_SEVERITIES: tuple[str, ...] = ("info", "warn", "error", "critical")

_EMPTY: Mapping[str, Any] = MappingProxyType({})


class DefinitionError(ValueError):
    """A definition is invalid. Raised when it is defined (so at import of the module that holds it).

    ``source`` is the function that refused it (``define_tool``), ``field`` the field's path
    (``needs_spec.secrets.KEY``, ``effects[0].kind``; ``""`` for the whole definition) and ``problem`` what
    is wrong with it.
    """

    def __init__(self, source: str, field: str, problem: str) -> None:
        where = f"{source}: " if not field else f"{source}: {field}: "
        super().__init__(where + problem)
        self.source = source
        self.field = field
        self.problem = problem


class ConversionError(ValueError):
    """A value passed its JSON Schema but could not become what the handler takes (or a handler's
    return value could not become JSON). ``issues`` are protocol issues: ``{"instancePath", "message"}``
    dicts without ``keyword``."""

    def __init__(self, message: str, issues: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(message)
        self.issues: list[dict[str, Any]] = [dict(issue) for issue in issues]


class Cancelled(Exception):
    """Raised by ``ctx.raise_if_cancelled()`` once the call is cancelled. ``reason`` is ``"deadline"``
    (the caller's ``kindgi-timeout-ms`` passed) or ``"disconnect"`` (the caller went away), or any reason
    the service passed to ``Cancellation.cancel``."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"call cancelled ({reason})")
        self.reason = reason


class Cancellation:
    """The cancellation state of one call, owned by the service.

    Create it on the event loop thread (``Cancellation()``), hand it to the ``ToolContext`` or
    ``CheckContext`` and call ``cancel(reason)`` on the loop thread when the deadline passes or the caller
    disconnects. Pack code sees it through ``ctx.cancelled`` (readable from any thread, for sync handlers
    running in the pool), ``ctx.raise_if_cancelled()`` and ``ctx.cancel_event`` (for async handlers:
    ``await ctx.cancel_event.wait()``). The service may additionally ``task.cancel()`` an async handler.
    """

    def __init__(self) -> None:
        self._flag = threading.Event()
        self._event = asyncio.Event()
        self.reason: str | None = None

    @property
    def cancelled(self) -> bool:
        return self._flag.is_set()

    @property
    def event(self) -> asyncio.Event:
        return self._event

    def cancel(self, reason: str) -> None:
        """Marks the call cancelled (first reason wins). Call on the loop thread."""
        if self._flag.is_set():
            return
        self.reason = reason
        self._flag.set()
        self._event.set()


class Secrets(Mapping[str, Any]):
    """The tenant secrets a tool declared in ``needs_spec.secrets``, for this call: a read-only mapping.
    Its ``repr``/``str`` show the names only, so printing or logging a context never shows a value."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        self._values: Mapping[str, Any] = MappingProxyType(dict(values or {}))

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Secrets({sorted(self._values)!r})"

    __str__ = __repr__


class ToolLogger:
    """``ctx.log``: ``ctx.log.info("fetched", {"rows": 3})`` (fields are optional). Lines carry the
    call's ids; the service decides where they go through the injected ``LogSink``."""

    __slots__ = ("_sink",)

    def __init__(self, sink: LogSink) -> None:
        self._sink = sink

    def debug(self, message: str, fields: Mapping[str, Any] | None = None) -> None:
        self._sink("debug", str(message), fields or _EMPTY)

    def info(self, message: str, fields: Mapping[str, Any] | None = None) -> None:
        self._sink("info", str(message), fields or _EMPTY)

    def warn(self, message: str, fields: Mapping[str, Any] | None = None) -> None:
        self._sink("warn", str(message), fields or _EMPTY)

    warning = warn

    def error(self, message: str, fields: Mapping[str, Any] | None = None) -> None:
        self._sink("error", str(message), fields or _EMPTY)


class _CancellableContext:
    """What tool and check contexts share: cancellation."""

    def __init__(self, cancellation: Cancellation) -> None:
        self._cancellation = cancellation

    @property
    def cancelled(self) -> bool:
        """True once the call's deadline passed or its caller went away. Safe from any thread."""
        return self._cancellation.cancelled

    @property
    def cancel_event(self) -> asyncio.Event:
        """Set when the call is cancelled: ``await ctx.cancel_event.wait()`` in an async handler."""
        return self._cancellation.event

    def raise_if_cancelled(self) -> None:
        """Raises ``Cancelled`` once the call is cancelled: a cooperative check for long loops."""
        if self._cancellation.cancelled:
            raise Cancelled(self._cancellation.reason or "cancelled")


class ToolContext(_CancellableContext):
    """What a tool handler receives as ``ctx``. Built by the service for each call from the wire ``ctx``
    (``specs/pack-protocol.schema.json#/$defs/callContext``):

    ``ToolContext(tenant_id=ctx["tenantId"], run_id=ctx["runId"], request_id=ctx.get("requestId"),
    project_id=..., org_id=..., idempotency_key=..., settings=..., env=..., config=...,
    extra=<the wire ctx's other fields>, secrets=Secrets(<declared names only>),
    log=ToolLogger(sink), cancellation=Cancellation(), wire=<the wire ctx without secrets>)``.

    The ids come from the run, never from the input: to check an id the input names, compare with these.
    """

    def __init__(
        self,
        *,
        tenant_id: str,
        run_id: str,
        cancellation: Cancellation,
        log: ToolLogger,
        secrets: Secrets | None = None,
        request_id: str | None = None,
        project_id: str | None = None,
        org_id: str | None = None,
        idempotency_key: str | None = None,
        settings: Mapping[str, Mapping[str, Any]] | None = None,
        env: Mapping[str, str] | None = None,
        config: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
        wire: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(cancellation)
        # The wire ctx exactly as sent, without `secrets` (a field sent as null stays null): for code that
        # passes the caller's context on, or must tell a null id from an absent one.
        self.wire: Mapping[str, Any] = MappingProxyType(dict(wire)) if wire is not None else _EMPTY
        self.tenant_id = tenant_id
        self.run_id = run_id
        self.request_id = request_id
        self.project_id = project_id
        self.org_id = org_id
        # Stable across retries of the same step: use it to make a mutating call idempotent.
        self.idempotency_key = idempotency_key
        # Block id → values.
        self.settings: Mapping[str, Mapping[str, Any]] = settings or _EMPTY
        self.env: Mapping[str, str] = env or _EMPTY
        self.config: Mapping[str, Any] = config or _EMPTY
        # Fields of the wire ctx this SDK has no attribute for, as sent.
        self.extra: Mapping[str, Any] = extra or _EMPTY
        self.secrets = secrets if secrets is not None else Secrets()
        self.log = log

    def __repr__(self) -> str:
        return (
            f"ToolContext(tenant_id={self.tenant_id!r}, run_id={self.run_id!r}, "
            f"request_id={self.request_id!r}, secrets={self.secrets!r})"
        )


class CheckContext(_CancellableContext):
    """What a guardrail check receives as its third argument: cancellation, and the caller's run and
    request ids from the ``kindgi-run-id``/``kindgi-request-id`` headers when sent (a check-invoke has no
    ``ctx``). Built by the service: ``CheckContext(cancellation=..., run_id=..., request_id=...)``."""

    def __init__(self, *, cancellation: Cancellation, run_id: str | None = None, request_id: str | None = None) -> None:
        super().__init__(cancellation)
        self.run_id = run_id
        self.request_id = request_id

    def __repr__(self) -> str:
        return f"CheckContext(run_id={self.run_id!r}, request_id={self.request_id!r})"


class RunTrace(Mapping[str, Any]):
    """What a check evaluates: the wire ``trace`` (``#/$defs/runTrace``), read-only, with attribute access
    to the known fields (``trace.output``, ``trace.tool_calls``) and mapping access to every field as sent
    (``trace["toolCalls"]``, or a caller's own field). Built by the service: ``RunTrace(message["trace"])``."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data: Mapping[str, Any] = MappingProxyType(dict(data))

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"RunTrace({dict(self._data)!r})"

    @property
    def run_id(self) -> str | None:
        return self._data.get("runId")

    @property
    def tenant_id(self) -> str | None:
        return self._data.get("tenantId")

    @property
    def output(self) -> Any:
        return self._data.get("output")

    @property
    def user_input(self) -> Any:
        return self._data.get("userInput")

    @property
    def tool_calls(self) -> list[Any]:
        return list(self._data.get("toolCalls") or [])

    @property
    def tool_results(self) -> list[Any]:
        return list(self._data.get("toolResults") or [])

    @property
    def model_calls(self) -> list[Any]:
        return list(self._data.get("modelCalls") or [])

    @property
    def mode(self) -> str | None:
        return self._data.get("mode")


@dataclass(frozen=True)
class CheckResult:
    """What a check returns (a ``CheckResult``, a ``{"passed": ...}`` dict or a bool all do; see
    ``GuardrailDefinition.convert_result``). ``extra`` holds fields of the check's own."""

    passed: bool
    reason: str | None = None
    attributes: Mapping[str, Any] | None = None
    judge_response: Any = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def ok(cls, reason: str | None = None) -> CheckResult:
        return cls(passed=True, reason=reason)

    @classmethod
    def fail(cls, reason: str, attributes: Mapping[str, Any] | None = None) -> CheckResult:
        return cls(passed=False, reason=reason, attributes=attributes)

    def to_json(self) -> dict[str, Any]:
        """The wire ``checkResult``: only the fields that are set."""
        out: dict[str, Any] = dict(self.extra)
        out["passed"] = self.passed
        if self.reason is not None:
            out["reason"] = self.reason
        if self.attributes is not None:
            out["attributes"] = dict(self.attributes)
        if self.judge_response is not None:
            out["judgeResponse"] = self.judge_response
        return out


Converter = Callable[[Any], Any]
Invoker = Callable[[Any, ToolContext], Any]
Evaluator = Callable[[Any, RunTrace, CheckContext], Any]


def _identity(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class ToolDefinition:
    """A tool, as ``define_tool`` / ``@tool`` return it. Index fields (what ``index.json`` carries, in
    its camelCase) and the callables the service runs.

    - ``id``: ``<pack-id>.<name>``, kebab-case. ``version``: an exact semver, else the pack's version.
    - ``description``: what the tool does and returns (the model reads it).
    - ``input_schema``: JSON Schema (always ``type: object``) the wire input is validated against, with
      defaults filled in. ``output_schema``: the handler's result's schema (``True`` when none was given).
    - ``handler``: the author's function as given. ``is_async``: ``invoke`` returns an awaitable.
    - ``mutating``, ``effects`` (``[{"kind", "resource"?}]``), ``needs``, ``needs_spec``
      (``{"secrets": {NAME: JSON Schema}}``: the secrets ``ctx.secrets`` holds, each value checked against
      its schema by the service before the call), ``sandbox``, ``limits``, ``network``: declarations the
      index carries as given (``None``: absent). ``extra``: more index fields of the author's own.
    """

    id: str
    description: str
    input_schema: JsonSchema
    output_schema: JsonSchema
    handler: Callable[..., Any]
    is_async: bool
    version: str | None = None
    mutating: bool | None = None
    effects: tuple[Mapping[str, Any], ...] | None = None
    needs: Any = None
    needs_spec: Mapping[str, Any] | None = None
    sandbox: str | None = None
    limits: Mapping[str, Any] | None = None
    network: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    defined_in: str | None = field(default=None, repr=False, compare=False)
    input_converter: Converter = field(default=_identity, repr=False, compare=False)
    invoker: Invoker | None = field(default=None, repr=False, compare=False)
    output_converter: Converter = field(default=_identity, repr=False, compare=False)

    @property
    def secret_names(self) -> tuple[str, ...]:
        """The names ``needs_spec.secrets`` declares (``ctx.secrets`` holds exactly these)."""
        secrets = (self.needs_spec or {}).get("secrets") or {}
        return tuple(secrets)

    def convert_input(self, value: Any) -> Any:
        """Schema-valid JSON input → the handler's argument(s). Raises ``ConversionError``."""
        return self.input_converter(value)

    def invoke(self, converted: Any, ctx: ToolContext) -> Any:
        """Calls the handler with converted input: its result, or an awaitable when ``is_async``."""
        if self.invoker is not None:
            return self.invoker(converted, ctx)
        return self.handler(converted, ctx)

    def convert_output(self, result: Any) -> Any:
        """The handler's result → JSON values (dicts, lists, str, int, float, bool, None). Raises
        ``ConversionError``."""
        return self.output_converter(result)


@dataclass(frozen=True)
class GuardrailDefinition:
    """A guardrail, as ``define_guardrail`` returns it.

    - ``id``: ``<pack-id>.<name>``; ``kind``: ``zero-llm`` unless given; ``name``: optional display name.
    - ``action``: ``{"on-violation": one of GUARDRAIL_ACTIONS, ...settings}``; ``severity``: one of
      ``GUARDRAIL_SEVERITIES`` (default ``error``); ``scope``: ``{when?, agents?, flows?, tenants?}``.
    - ``config``: the default config values (index field); ``config_schema``: JSON Schema of the config.
    - ``check``: the inline check function, or ``None`` for a built-in check (``builtin_check`` names it;
      a pack service does not serve built-ins). ``check_id``: the id the protocol's
      ``check-invoke.check.id`` uses (``checkId ?? id`` in the index; always set here).
    - ``is_async``: ``evaluate`` returns an awaitable. A sync check runs in a worker thread.
    """

    id: str
    kind: str
    action: Mapping[str, Any]
    severity: str
    check_id: str
    check: Callable[..., Any] | None
    is_async: bool
    builtin_check: str | None = None
    explicit_check_id: bool = False
    name: str | None = None
    scope: Mapping[str, Any] | None = None
    config: Mapping[str, Any] | None = None
    config_schema: JsonSchema | None = None
    sandbox: str | None = None
    limits: Mapping[str, Any] | None = None
    network: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    defined_in: str | None = field(default=None, repr=False, compare=False)
    config_converter: Converter = field(default=_identity, repr=False, compare=False)
    evaluator: Evaluator | None = field(default=None, repr=False, compare=False)

    def convert_config(self, value: Any) -> Any:
        """The wire ``config`` (as sent; no defaults filled) → what the check takes (a Pydantic model
        when ``config_schema`` came from one). Raises ``ConversionError``."""
        return self.config_converter(value)

    def evaluate(self, config: Any, trace: RunTrace, ctx: CheckContext) -> Any:
        """Runs the check: a result (see ``convert_result``), or an awaitable when ``is_async``."""
        if self.evaluator is not None:
            return self.evaluator(config, trace, ctx)
        if self.check is None:
            raise TypeError(f"guardrail {self.id} uses the built-in check {self.builtin_check!r}")
        return self.check(config, trace, ctx)

    @staticmethod
    def convert_result(result: Any) -> dict[str, Any] | None:
        """A check's return value → the wire ``checkResult``; ``None`` when it is not one
        (``check-shape-invalid``). Accepts ``CheckResult``, a dict with a bool ``passed``, or a bool."""
        if isinstance(result, CheckResult):
            return result.to_json()
        if isinstance(result, bool):
            return {"passed": result}
        if isinstance(result, Mapping) and isinstance(result.get("passed"), bool):
            return dict(result)
        return None


@dataclass(frozen=True)
class AgentDefinition:
    """An agent, as data: ``id``, ``version`` (else the pack's), ``instructions`` (its system prompt),
    ``name``, ``description``, ``model`` (a model entry of the server's ``models``), ``capabilities``,
    ``tools`` (tool definitions, which the index pins to their version (else the pack's) as
    ``{"id", "range"}``; ids; or ``{"id", "range"}``), ``guardrails`` (ids), ``tool_errors`` (codes of tool
    failures the model is shown), ``conversation_policy`` (``hitl``, ``maxSteps``, ``maxToolCalls``, as the
    index spells them); ``extra`` holds other fields, written to the index as given."""

    id: str
    instructions: str
    version: str | None = None
    name: str | None = None
    capabilities: tuple[str, ...] | None = None
    tools: tuple[ToolDefinition | str | Mapping[str, Any], ...] | None = None
    guardrails: tuple[str, ...] | None = None
    description: str | None = None
    model: str | None = None
    tool_errors: tuple[str, ...] | None = None
    conversation_policy: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    defined_in: str | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class FlowDefinition:
    """A flow, as data: ``id``, ``version`` (else the pack's), ``nodes`` (each with a unique ``id``),
    ``edges`` (``from``/``to`` naming nodes); ``extra`` holds other fields, written to the index as given."""

    id: str
    nodes: tuple[Mapping[str, Any], ...]
    edges: tuple[Mapping[str, Any], ...]
    version: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    defined_in: str | None = field(default=None, repr=False, compare=False)


Definition = ToolDefinition | GuardrailDefinition | AgentDefinition | FlowDefinition
