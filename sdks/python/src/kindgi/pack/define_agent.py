"""``define_agent``: an agent, as data."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from kindgi.pack.definitions import AgentDefinition, GuardrailDefinition, ToolDefinition
from kindgi.pack.fields import FieldChecker, caller_file, describe

# Index names of the fields define_agent takes by their Python names: extra fields may not reuse them.
_INDEX_FIELDS = frozenset(
    {
        "id",
        "version",
        "name",
        "description",
        "instructions",
        "model",
        "capabilities",
        "tools",
        "guardrails",
        "toolErrors",
        "conversationPolicy",
        "modulePath",
    }
)
_ERROR_CODE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_GATE_KEYS = ("enabled", "tools", "exempt")
# A policy key given as None is a mistake to report, not a key left out.
_ABSENT = object()

ToolRef = ToolDefinition | str | Mapping[str, Any]


def define_agent(
    *,
    id: str,
    instructions: str,
    version: str | None = None,
    name: str | None = None,
    description: str | None = None,
    model: str | None = None,
    capabilities: Sequence[str] | None = None,
    tools: Sequence[ToolRef] | None = None,
    guardrails: Sequence[GuardrailDefinition | str] | None = None,
    tool_errors: Sequence[str] | None = None,
    conversation_policy: Mapping[str, Any] | None = None,
    **extra: Any,
) -> AgentDefinition:
    """Defines an agent; bind the result to a module-level name in a file under ``agents/``.

    ``model`` names a model entry of the server's ``models`` (``default`` when absent). ``tools`` lists
    tool definitions (the index pins each to its version, else the pack's), tool ids (the newest active
    version) or ``{"id", "range"}`` (a semver range); ``guardrails`` lists definitions or ids.
    ``tool_errors`` lists the codes of the tool failures the model is shown and may fix (``tool-error``,
    ``input-validation-failed``, ...); any other failure fails the turn. ``conversation_policy`` takes
    ``hitl`` (``True``/``False``, or ``{"enabled", "tools", "exempt"}``), ``maxSteps`` (1 to 100) and
    ``maxToolCalls`` (1 to 1000). Other keyword arguments are written to the index as given. Raises
    ``DefinitionError`` naming the field."""
    check = FieldChecker("define_agent")
    check.namespaced_id(id)
    check.optional_semver(version)
    check.optional_string(name, "name")
    check.optional_string(description, "description")
    check.non_empty_string(instructions, "instructions")
    check.optional_string(model, "model")
    codes = _tool_errors(check, tool_errors)
    policy = _conversation_policy(check, conversation_policy)
    return AgentDefinition(
        id=id,
        instructions=instructions,
        version=version,
        name=name,
        description=description,
        model=model,
        capabilities=check.optional_string_list(capabilities, "capabilities"),
        tools=_tool_refs(check, tools),
        guardrails=_guardrail_refs(check, guardrails),
        tool_errors=codes,
        conversation_policy=policy,
        extra=check.extra(extra, _INDEX_FIELDS),
        defined_in=caller_file(1),
    )


def _list(check: FieldChecker, value: Any, field: str) -> Sequence[Any]:
    if isinstance(value, str | Mapping) or not isinstance(value, Sequence):
        check.fail(field, f'"{field}" must be a list, got {describe(value)}')
    return value


def _tool_ref(check: FieldChecker, item: Any, field: str) -> ToolRef:
    # A definition stays as it is: the indexer pins it to its version, which may be the pack's.
    if isinstance(item, ToolDefinition):
        return item
    if isinstance(item, str):
        return check.namespaced_id(item, field)
    if not isinstance(item, Mapping):
        check.fail(field, f'"{field}" must be a tool, a tool id or {{id, range}}, got {describe(item)}')
    for key in item:
        if key not in ("id", "range"):
            check.fail(f"{field}.{key}", f'"{field}" takes id and range, not "{key}"')
    tool_id = check.namespaced_id(item.get("id"), f"{field}.id")
    tool_range = check.optional_string(item.get("range"), f"{field}.range")
    # Without a range the reference means the newest active version: the index names it by id alone.
    return tool_id if tool_range is None else {"id": tool_id, "range": tool_range}


def _tool_refs(check: FieldChecker, tools: Any) -> tuple[ToolRef, ...] | None:
    if tools is None:
        return None
    return tuple(_tool_ref(check, item, f"tools[{index}]") for index, item in enumerate(_list(check, tools, "tools")))


def _guardrail_refs(check: FieldChecker, guardrails: Any) -> tuple[str, ...] | None:
    if guardrails is None:
        return None
    refs: list[str] = []
    for index, item in enumerate(_list(check, guardrails, "guardrails")):
        field = f"guardrails[{index}]"
        if isinstance(item, GuardrailDefinition):
            refs.append(item.id)
        elif isinstance(item, str):
            refs.append(check.namespaced_id(item, field))
        else:
            check.fail(field, f'"{field}" must be a guardrail or its id, got {describe(item)}')
    return tuple(refs)


def _tool_errors(check: FieldChecker, codes: Any) -> tuple[str, ...] | None:
    listed = check.optional_string_list(codes, "tool_errors")
    if listed is None:
        return None
    for index, code in enumerate(listed):
        field = f"tool_errors[{index}]"
        if not _ERROR_CODE.match(code):
            check.fail(field, f'"{field}" must be an error code in kebab-case, got {describe(code)}')
        if listed.index(code) != index:
            check.fail(field, f'"tool_errors" lists "{code}" twice')
    return listed


def _limit(check: FieldChecker, value: Any, field: str, most: int) -> None:
    if value is _ABSENT:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        check.fail(field, f'"{field}" must be a whole number from 1 to {most}, got {describe(value)}')


def _conversation_policy(check: FieldChecker, policy: Any) -> dict[str, Any] | None:
    field = "conversation_policy"
    copied = check.optional_object(policy, field)
    if copied is None:
        return None
    _limit(check, copied.get("maxSteps", _ABSENT), f"{field}.maxSteps", 100)
    _limit(check, copied.get("maxToolCalls", _ABSENT), f"{field}.maxToolCalls", 1000)
    hitl = copied.get("hitl", _ABSENT)
    if hitl is _ABSENT or isinstance(hitl, bool):
        return copied
    if not isinstance(hitl, dict):
        check.fail(f"{field}.hitl", f'"{field}.hitl" must be True, False or a dict, got {describe(hitl)}')
    for key in hitl:
        if key not in _GATE_KEYS:
            check.fail(f"{field}.hitl.{key}", f'"{field}.hitl" takes enabled, tools and exempt, not "{key}"')
    enabled = hitl.get("enabled", _ABSENT)
    if enabled is not _ABSENT and not isinstance(enabled, bool):
        check.fail(f"{field}.hitl.enabled", f'"{field}.hitl.enabled" must be True or False, got {describe(enabled)}')
    for gate in ("tools", "exempt"):
        ids = hitl.get(gate, _ABSENT)
        if ids is _ABSENT:
            continue
        if not isinstance(ids, list):
            check.fail(f"{field}.hitl.{gate}", f'"{field}.hitl.{gate}" must be a list of tool ids, got {describe(ids)}')
        for index, tool_id in enumerate(ids):
            check.namespaced_id(tool_id, f"{field}.hitl.{gate}[{index}]")
    return copied
