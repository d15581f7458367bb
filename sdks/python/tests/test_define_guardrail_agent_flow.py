from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel, Field

from kindgi.pack import (
    Cancellation,
    CheckContext,
    CheckResult,
    DefinitionError,
    GuardrailDefinition,
    RunTrace,
    define_agent,
    define_flow,
    define_guardrail,
    define_tool,
)


class Config(BaseModel):
    min_length: int = Field(default=1, ge=0, alias="minLength")


def test_guardrail_with_a_model_config() -> None:
    def check(config: Config, trace: RunTrace, ctx: CheckContext) -> CheckResult:
        return CheckResult.ok() if len(trace.output or "") >= config.min_length else CheckResult.fail("too short")

    g = define_guardrail(
        id="acme.min-length",
        check=check,
        on_violation={"on-violation": "retry", "max": 2},
        config_schema=Config,
        config={"minLength": 2},
        severity="warn",
    )
    assert g.action == {"on-violation": "retry", "max": 2}
    assert g.check_id == "acme.min-length" and g.kind == "zero-llm"
    assert g.config_schema == {
        "type": "object",
        "properties": {"minLength": {"type": "integer", "minimum": 0, "default": 1}},
    }
    ctx = CheckContext(cancellation=Cancellation())
    result = g.evaluate(g.convert_config({"minLength": 5}), RunTrace({"output": "abc"}), ctx)
    assert GuardrailDefinition.convert_result(result) == {"passed": False, "reason": "too short"}
    assert GuardrailDefinition.convert_result(True) == {"passed": True}
    assert GuardrailDefinition.convert_result("yes") is None


def test_async_and_builtin_checks() -> None:
    async def check(trace: RunTrace) -> dict[str, Any]:
        return {"passed": bool(trace.tool_calls)}

    g = define_guardrail(id="acme.called", check=check, action="log-only")
    assert g.is_async
    assert asyncio.run(g.evaluate({}, RunTrace({"toolCalls": [1]}), CheckContext(cancellation=Cancellation()))) == {
        "passed": True
    }
    builtin = define_guardrail(id="acme.cite", check="must-cite", on_violation="halt")
    assert builtin.check is None and builtin.check_id == "must-cite" and builtin.builtin_check == "must-cite"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"on_violation": None}, "on_violation"),
        ({"on_violation": "explode"}, "on_violation"),
        ({"on_violation": None, "action": {"on-violation": "nope"}}, "action.on-violation"),
        ({"severity": "fatal"}, "severity"),
        ({"scope": {"when": "sometimes"}}, "scope.when"),
        ({"scope": {"users": []}}, "scope.users"),
        ({"scope": {"agents": [""]}}, "scope.agents[0]"),
        (
            {"config": {"n": "x"}, "config_schema": {"type": "object", "properties": {"n": {"type": "integer"}}}},
            "config",
        ),
        ({"check": 3}, "check"),
        ({"kind": ""}, "kind"),
    ],
)
def test_guardrail_fields_are_named(fields: dict[str, Any], field: str) -> None:
    spec: dict[str, Any] = {"id": "acme.g", "check": lambda trace: True, "on_violation": "halt", **fields}
    with pytest.raises(DefinitionError) as caught:
        define_guardrail(**spec)
    assert caught.value.field == field


def test_agents_and_flows_are_data() -> None:
    t = define_tool(id="acme.t", description="T.", handler=lambda i, c: None)
    a = define_agent(
        id="acme.agent", instructions="Be brief.", tools=[t, "acme.u", {"id": "acme.v", "range": "^1"}], model="small"
    )
    assert a.tools == (t, "acme.u", {"id": "acme.v", "range": "^1"})
    assert a.model == "small" and a.extra == {}
    f = define_flow(id="acme.flow", nodes=[{"id": "a"}, {"id": "b"}], edges=[{"from": "a", "to": "b"}])
    assert f.nodes[1] == {"id": "b"}
    with pytest.raises(DefinitionError) as caught:
        define_agent(id="acme.agent", instructions="")
    assert caught.value.field == "instructions"
    with pytest.raises(DefinitionError) as caught:
        define_agent(id="acme.agent", instructions="x", tools=["Nope"])
    assert caught.value.field == "tools[0]"
    with pytest.raises(DefinitionError) as caught:
        define_flow(id="acme.flow", nodes=[{"id": "a"}, {"id": "a"}], edges=[])
    assert caught.value.field == "nodes[1].id"
    with pytest.raises(DefinitionError) as caught:
        define_flow(id="acme.flow", nodes=[{"id": "a"}], edges=[{"from": "a", "to": "z"}])
    assert caught.value.field == "edges[0].to"
