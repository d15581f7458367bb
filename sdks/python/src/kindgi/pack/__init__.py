"""The Kindgi pack SDK for Python: define tools, guardrails, agents and flows; index and serve a pack
(``python -m kindgi.pack index|serve``)."""

from kindgi.pack.define_agent import define_agent
from kindgi.pack.define_flow import define_flow
from kindgi.pack.define_guardrail import define_guardrail
from kindgi.pack.define_tool import define_tool, tool
from kindgi.pack.definitions import (
    AgentDefinition,
    Cancellation,
    Cancelled,
    CheckContext,
    CheckResult,
    ConversionError,
    DefinitionError,
    FlowDefinition,
    GuardrailDefinition,
    RunTrace,
    Secrets,
    ToolContext,
    ToolDefinition,
    ToolLogger,
)

__all__ = [
    "AgentDefinition",
    "Cancellation",
    "Cancelled",
    "CheckContext",
    "CheckResult",
    "ConversionError",
    "DefinitionError",
    "FlowDefinition",
    "GuardrailDefinition",
    "RunTrace",
    "Secrets",
    "ToolContext",
    "ToolDefinition",
    "ToolLogger",
    "define_agent",
    "define_flow",
    "define_guardrail",
    "define_tool",
    "tool",
]
