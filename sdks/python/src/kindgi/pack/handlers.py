"""How a handler or check function is called: which parameter is the context, whether the input arrives
as one value or as keyword arguments, and what its annotations say about the schemas."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pydantic

from kindgi.pack.definitions import CheckContext, ToolContext
from kindgi.pack.schemas import is_model_class

_CONTEXT_NAMES = frozenset({"ctx", "context"})
_CONTEXT_TYPES = (ToolContext, CheckContext)


@dataclass(frozen=True)
class Signature:
    """What a function's signature says: its value parameters (in order, with annotations and defaults),
    whether it takes a context (and by which name), and its return annotation (``inspect.Parameter.empty``
    when there is none)."""

    params: tuple[inspect.Parameter, ...]
    hints: dict[str, Any]
    context_name: str | None
    context_positional: bool
    returns: Any


def is_async_callable(fn: Callable[..., Any]) -> bool:
    """True for ``async def`` functions, also behind ``functools.partial`` or as ``__call__``."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(fn, "__call__", None)  # noqa: B004 - the method itself is what matters
    return call is not None and inspect.iscoroutinefunction(call)


def read_signature(fn: Callable[..., Any]) -> Signature:
    """Reads ``fn``'s parameters; the context is the parameter named ``ctx``/``context`` or annotated
    ``ToolContext``/``CheckContext``. Raises ``TypeError``/``NameError`` for an unreadable one."""
    sig = inspect.signature(fn)
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except TypeError:
        hints = {}
    params: list[inspect.Parameter] = []
    context_name: str | None = None
    context_positional = False
    for param in sig.parameters.values():
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        hint = hints.get(param.name)
        if param.name in _CONTEXT_NAMES or (inspect.isclass(hint) and issubclass(hint, _CONTEXT_TYPES)):
            context_name = param.name
            context_positional = param.kind is not inspect.Parameter.KEYWORD_ONLY
            continue
        params.append(param)
    returns = hints.get("return", inspect.Parameter.empty)
    return Signature(tuple(params), hints, context_name, context_positional, returns)


def single_model_param(sig: Signature) -> type[pydantic.BaseModel] | None:
    """The model class when the handler takes exactly one value parameter annotated with a model."""
    if len(sig.params) != 1:
        return None
    hint = sig.hints.get(sig.params[0].name)
    return hint if is_model_class(hint) else None


def params_model(sig: Signature, name: str) -> type[pydantic.BaseModel]:
    """A model of the handler's value parameters (annotation → type, default → default), refusing
    unknown fields as a Python function would."""
    fields: dict[str, Any] = {}
    for param in sig.params:
        annotation = sig.hints.get(param.name, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (annotation, default)
    config = pydantic.ConfigDict(extra="forbid")
    model: type[pydantic.BaseModel] = pydantic.create_model(name, __config__=config, **fields)
    return model


def positional_caller(fn: Callable[..., Any], sig: Signature, values: int) -> Callable[[tuple[Any, ...], Any], Any]:
    """Calls ``fn`` with ``values`` leading positional arguments, plus the context where it takes one."""
    if sig.context_name is None:
        return lambda args, ctx: fn(*args[:values])
    if sig.context_positional:
        return lambda args, ctx: fn(*args[:values], ctx)
    name = sig.context_name
    return lambda args, ctx: fn(*args[:values], **{name: ctx})


def keyword_caller(fn: Callable[..., Any], sig: Signature) -> Callable[[pydantic.BaseModel, Any], Any]:
    """Calls ``fn`` with a params model's fields as keyword arguments, plus the context."""
    names = [param.name for param in sig.params]
    context_name = sig.context_name

    def call(model: pydantic.BaseModel, ctx: Any) -> Any:
        kwargs = {name: getattr(model, name) for name in names}
        if context_name is not None:
            kwargs[context_name] = ctx
        return fn(**kwargs)

    return call
