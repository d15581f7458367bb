"""``define_agent``: what a turn needs (model, tool refs, tool-error codes, conversation policy), checked
when defined, and written to the index as the TypeScript indexer writes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import run_index
from kindgi.pack import DefinitionError, define_agent, define_tool
from kindgi.pack.indexing.entries import agent_entry


def _message(**patch: Any) -> tuple[str, str]:
    with pytest.raises(DefinitionError) as caught:
        define_agent(**{"id": "acme.writer", "instructions": "Write.", **patch})
    return caught.value.field, str(caught.value)


def test_keeps_what_a_turn_needs() -> None:
    policy = {"hitl": {"tools": ("acme.lookup",), "exempt": ["acme.send"]}, "maxSteps": 8, "maxToolCalls": 20}
    agent = define_agent(
        id="acme.writer",
        name="Writer",
        description="Writes briefs.",
        instructions="Write briefs.",
        model="fast",
        tool_errors=("tool-error", "input-validation-failed"),
        conversation_policy=policy,
    )
    assert agent.model == "fast" and agent.description == "Writes briefs."
    assert agent.tool_errors == ("tool-error", "input-validation-failed")
    # A JSON copy: later changes to the caller's dict do not reach the definition.
    assert agent.conversation_policy == {
        "hitl": {"tools": ["acme.lookup"], "exempt": ["acme.send"]},
        "maxSteps": 8,
        "maxToolCalls": 20,
    }
    policy["maxSteps"] = 99
    assert agent.conversation_policy["maxSteps"] == 8
    assert define_agent(id="acme.a", instructions="x", conversation_policy={"hitl": True}).conversation_policy == {
        "hitl": True
    }


@pytest.mark.parametrize(
    ("patch", "field", "message"),
    [
        ({"model": ""}, "model", '"model" must be a non-empty string, got ""'),
        ({"description": 3}, "description", '"description" must be a non-empty string, got int 3'),
        ({"tool_errors": "tool-error"}, "tool_errors", '"tool_errors" must be a list of strings, got "tool-error"'),
        (
            {"tool_errors": ["Tool Error"]},
            "tool_errors[0]",
            '"tool_errors[0]" must be an error code in kebab-case, got "Tool Error"',
        ),
        ({"tool_errors": ["tool-error", "tool-error"]}, "tool_errors[1]", '"tool_errors" lists "tool-error" twice'),
        ({"conversation_policy": True}, "conversation_policy", '"conversation_policy" must be a dict, got bool True'),
        (
            {"conversation_policy": {"maxSteps": 0}},
            "conversation_policy.maxSteps",
            '"conversation_policy.maxSteps" must be a whole number from 1 to 100, got int 0',
        ),
        (
            {"conversation_policy": {"maxSteps": True}},
            "conversation_policy.maxSteps",
            '"conversation_policy.maxSteps" must be a whole number from 1 to 100, got bool True',
        ),
        (
            {"conversation_policy": {"maxToolCalls": 1001}},
            "conversation_policy.maxToolCalls",
            '"conversation_policy.maxToolCalls" must be a whole number from 1 to 1000, got int 1001',
        ),
        (
            {"conversation_policy": {"maxToolCalls": None}},
            "conversation_policy.maxToolCalls",
            '"conversation_policy.maxToolCalls" must be a whole number from 1 to 1000, got nothing',
        ),
        (
            {"conversation_policy": {"hitl": "yes"}},
            "conversation_policy.hitl",
            '"conversation_policy.hitl" must be True, False or a dict, got "yes"',
        ),
        (
            {"conversation_policy": {"hitl": {"ask": True}}},
            "conversation_policy.hitl.ask",
            '"conversation_policy.hitl" takes enabled, tools and exempt, not "ask"',
        ),
        (
            {"conversation_policy": {"hitl": {"enabled": 1}}},
            "conversation_policy.hitl.enabled",
            '"conversation_policy.hitl.enabled" must be True or False, got int 1',
        ),
        (
            {"conversation_policy": {"hitl": {"exempt": "acme.send"}}},
            "conversation_policy.hitl.exempt",
            '"conversation_policy.hitl.exempt" must be a list of tool ids, got "acme.send"',
        ),
        (
            {"conversation_policy": {"hitl": {"tools": ["Lookup"]}}},
            "conversation_policy.hitl.tools[0]",
            '"conversation_policy.hitl.tools[0]" must be "<pack-id>.<name>" in kebab-case, got "Lookup"',
        ),
        (
            {"tools": [{"id": "acme.t", "version": "1.0.0"}]},
            "tools[0].version",
            '"tools[0]" takes id and range, not "version"',
        ),
        (
            {"tools": [{"id": "acme.t", "range": ""}]},
            "tools[0].range",
            '"tools[0].range" must be a non-empty string, got ""',
        ),
        ({"tools": [3]}, "tools[0]", '"tools[0]" must be a tool, a tool id or {id, range}, got int 3'),
        (
            {"toolErrors": ["tool-error"]},
            "toolErrors",
            '"toolErrors" is a field of its own here; pass it by its Python name',
        ),
    ],
)
def test_names_the_field_of_an_invalid_agent(patch: dict[str, Any], field: str, message: str) -> None:
    assert _message(**patch) == (field, f"define_agent: {field}: {message}")


def test_tool_refs_as_the_index_names_them() -> None:
    pinned = define_tool(id="acme.pinned", version="3.1.0", description="P.", handler=lambda i, c: None)
    floating = define_tool(id="acme.floating", description="F.", handler=lambda i, c: None)
    agent = define_agent(
        id="acme.agent",
        instructions="x",
        tools=[pinned, floating, {"id": "other.t", "range": "^2"}, {"id": "other.u"}, "other.v"],
    )
    entry = agent_entry(agent, "agents/agent.py", "1.4.0")
    assert entry["tools"] == [
        {"id": "acme.pinned", "range": "3.1.0"},
        {"id": "acme.floating", "range": "1.4.0"},
        {"id": "other.t", "range": "^2"},
        "other.u",
        "other.v",
    ]
    assert set(entry) == {"id", "version", "instructions", "modulePath", "tools"}


def test_the_index_schema_refuses_what_define_agent_leaves_to_it(py_pack: Path) -> None:
    # Repeated hitl ids pass define_agent (as in the TypeScript SDK); the index's uniqueItems refuses them.
    (py_pack / "agents" / "dup.py").write_text(
        "from kindgi.pack import define_agent\n"
        "a = define_agent(id='twin.dup', instructions='x',"
        " conversation_policy={'hitl': {'tools': ['twin.echo', 'twin.echo']}})\n"
    )
    done = run_index("--pack-dir", str(py_pack), "--json")
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "manifest-validation-failed" and "conversationPolicy" in error["message"]
    assert not (py_pack / "dist" / "index.json").exists()
