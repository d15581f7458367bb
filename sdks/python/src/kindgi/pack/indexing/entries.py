"""Index entries of definitions: the fields the TypeScript indexer writes for the same definition, by
their index (camelCase) names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kindgi.pack.definitions import AgentDefinition, FlowDefinition, GuardrailDefinition, ToolDefinition

# The built-in checks (@kindgi/guardrails): a pack may name one, never ship its own under its id.
RESERVED_CHECK_IDS = frozenset(
    {
        "must-cite",
        "never-call-tool",
        "max-tool-calls",
        "output-matches",
        "tool-order",
        "required-substring",
        "forbidden-substring",
    }
)


def _set(entry: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        entry[key] = value


def tool_entry(tool: ToolDefinition, module_path: str) -> dict[str, Any]:
    entry: dict[str, Any] = {
        **tool.extra,
        "id": tool.id,
        "input": tool.input_schema,
        "output": tool.output_schema,
        "modulePath": module_path,
        "description": tool.description,
    }
    _set(entry, "version", tool.version)
    _set(entry, "mutating", tool.mutating)
    _set(entry, "effects", None if tool.effects is None else [dict(e) for e in tool.effects])
    _set(entry, "needs", tool.needs)
    _set(entry, "needsSpec", None if tool.needs_spec is None else dict(tool.needs_spec))
    _set(entry, "sandbox", tool.sandbox)
    _set(entry, "limits", None if tool.limits is None else dict(tool.limits))
    _set(entry, "network", None if tool.network is None else dict(tool.network))
    return entry


def guardrail_entry(guardrail: GuardrailDefinition, module_path: str) -> dict[str, Any]:
    entry: dict[str, Any] = {
        **guardrail.extra,
        "id": guardrail.id,
        "kind": guardrail.kind,
        "action": dict(guardrail.action),
        "severity": guardrail.severity,
        "checkModulePath": module_path,
        "checkId": guardrail.check_id,
    }
    _set(entry, "name", guardrail.name)
    _set(entry, "scope", None if guardrail.scope is None else dict(guardrail.scope))
    _set(entry, "configSchema", guardrail.config_schema)
    _set(entry, "config", None if guardrail.config is None else dict(guardrail.config))
    _set(entry, "sandbox", guardrail.sandbox)
    _set(entry, "limits", None if guardrail.limits is None else dict(guardrail.limits))
    _set(entry, "network", None if guardrail.network is None else dict(guardrail.network))
    return entry


def _tool_ref(ref: ToolDefinition | str | Mapping[str, Any], pack_version: str) -> str | dict[str, Any]:
    # A definition pins the version the agent was written against (its own, else the pack's) as an exact
    # range; an id means the newest active version; {id, range} is kept.
    if isinstance(ref, ToolDefinition):
        return {"id": ref.id, "range": ref.version or pack_version}
    return ref if isinstance(ref, str) else dict(ref)


def agent_entry(agent: AgentDefinition, module_path: str, pack_version: str) -> dict[str, Any]:
    entry: dict[str, Any] = {
        **agent.extra,
        "id": agent.id,
        "version": agent.version or pack_version,
        "instructions": agent.instructions,
        "modulePath": module_path,
    }
    _set(entry, "name", agent.name)
    _set(entry, "description", agent.description)
    _set(entry, "model", agent.model)
    _set(entry, "capabilities", None if agent.capabilities is None else list(agent.capabilities))
    _set(entry, "tools", None if agent.tools is None else [_tool_ref(t, pack_version) for t in agent.tools])
    _set(entry, "guardrails", None if agent.guardrails is None else list(agent.guardrails))
    _set(entry, "toolErrors", None if agent.tool_errors is None else list(agent.tool_errors))
    _set(entry, "conversationPolicy", None if agent.conversation_policy is None else dict(agent.conversation_policy))
    return entry


def flow_entry(flow: FlowDefinition, module_path: str, pack_version: str) -> dict[str, Any]:
    return {
        **flow.extra,
        "id": flow.id,
        "version": flow.version or pack_version,
        "kernelPayloadVersion": 1,
        "nodes": [dict(n) for n in flow.nodes],
        "edges": [dict(e) for e in flow.edges],
        "modulePath": module_path,
    }
