from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel, Field

from kindgi.pack import (
    Cancellation,
    Cancelled,
    ConversionError,
    DefinitionError,
    ToolContext,
    ToolLogger,
    define_tool,
    tool,
)
from kindgi.pack.definitions import Secrets


def _ctx(lines: list[Any] | None = None, secrets: dict[str, Any] | None = None) -> ToolContext:
    sink = (
        (lambda level, message, fields: lines.append((level, message, dict(fields))))
        if lines is not None
        else (lambda *_: None)
    )
    return ToolContext(
        tenant_id="t1",
        run_id="r1",
        request_id="q1",
        cancellation=Cancellation(),
        log=ToolLogger(sink),
        secrets=Secrets(secrets or {}),
    )


class In(BaseModel):
    citation: str = Field(min_length=1)
    count: int = 1


class Out(BaseModel):
    ok: bool


def test_model_input_and_output_round_trip() -> None:
    t = define_tool(
        id="acme.verify",
        description="Verifies.",
        input=In,
        output=Out,
        handler=lambda i, ctx: Out(ok=i.citation == "x" and ctx.tenant_id == "t1"),
    )
    assert t.input_schema == {
        "type": "object",
        "properties": {"citation": {"type": "string", "minLength": 1}, "count": {"type": "integer", "default": 1}},
        "required": ["citation"],
    }
    assert t.output_schema["additionalProperties"] is False
    converted = t.convert_input({"citation": "x"})
    assert isinstance(converted, In)
    assert t.convert_output(t.invoke(converted, _ctx())) == {"ok": True}
    assert not t.is_async
    with pytest.raises(ConversionError) as caught:
        t.convert_input({"citation": ""})
    assert caught.value.issues[0]["instancePath"] == "/citation"


def test_decorated_async_tool_takes_keyword_arguments_and_ctx() -> None:
    lines: list[Any] = []

    @tool(id="acme.add", mutating=False)
    async def add(a: int, b: int = 2, *, ctx: ToolContext) -> int:
        """Adds two numbers."""
        ctx.log.info("adding", {"a": a})
        return a + b

    assert add.description == "Adds two numbers."
    assert add.is_async and add.mutating is False
    assert add.input_schema == {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer", "default": 2}},
        "required": ["a"],
        "additionalProperties": False,
    }
    assert add.output_schema == {"type": "integer"}
    assert asyncio.run(add.invoke(add.convert_input({"a": 1}), _ctx(lines))) == 3
    assert lines == [("info", "adding", {"a": 1})]


def test_json_schema_tool_gets_a_dict_and_defaults() -> None:
    t = define_tool(id="acme.echo", description="Echo.", input={"type": "object"}, handler=lambda input, ctx: input)
    assert t.output_schema == {}
    assert t.invoke({"x": 1}, _ctx()) == {"x": 1}
    bare = define_tool(id="acme.bare", description="Bare.", handler=lambda input, ctx: input)
    assert bare.input_schema == {"type": "object"}


def test_secrets_and_cancellation() -> None:
    ctx = _ctx(secrets={"API_KEY": "s3cret"})
    assert "s3cret" not in repr(ctx) and "API_KEY" in repr(ctx)
    assert ctx.secrets["API_KEY"] == "s3cret"
    t = define_tool(
        id="acme.k", description="K.", handler=lambda i, c: None, needs_spec={"secrets": {"API_KEY": str}, "other": [1]}
    )
    assert t.needs_spec == {"secrets": {"API_KEY": {"type": "string"}}, "other": [1]}
    assert t.secret_names == ("API_KEY",)
    cancellation = Cancellation()
    ctx = ToolContext(tenant_id="t", run_id="r", cancellation=cancellation, log=ToolLogger(lambda *_: None))
    ctx.raise_if_cancelled()
    cancellation.cancel("deadline")
    assert ctx.cancelled and ctx.cancel_event.is_set()
    with pytest.raises(Cancelled, match="deadline"):
        ctx.raise_if_cancelled()


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"id": "Acme.Bad"}, "id"),
        ({"id": "acme"}, "id"),
        ({"description": " "}, "description"),
        ({"version": "1.0"}, "version"),
        ({"handler": 3}, "handler"),
        ({"input": {"type": "string"}}, "input"),
        ({"input": list[str]}, "input"),
        ({"input": 42}, "input"),
        ({"mutating": "yes"}, "mutating"),
        ({"effects": [{"resource": "x"}]}, "effects[0].kind"),
        ({"effects": "write"}, "effects"),
        ({"needs_spec": {"secrets": {"api-key": {"type": "string"}}}}, "needs_spec.secrets.api-key"),
        ({"limits": [1]}, "limits"),
        ({"sandbox": ""}, "sandbox"),
        ({"needsSpec": {}}, "needsSpec"),
        ({"custom": {1, 2}}, "custom"),
    ],
)
def test_bad_fields_are_named(fields: dict[str, Any], field: str) -> None:
    spec: dict[str, Any] = {"id": "acme.t", "description": "T.", "handler": lambda i, c: None, **fields}
    with pytest.raises(DefinitionError) as caught:
        define_tool(**spec)
    assert caught.value.field == field
    assert caught.value.source == "define_tool"
