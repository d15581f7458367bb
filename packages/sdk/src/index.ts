export type {
  CheckResult,
  GuardrailAction,
  GuardrailActionName,
  GuardrailScope,
  GuardrailSeverity,
  RunTrace,
  ToolEffect,
} from '@kindgi/protocol';
export type { BuildExtension, ImageConfig, PrismaOptions } from './build.js';
export type { CheckBindings, LogFields, ToolContext, ToolLogger } from './context.js';
export {
  type AgentApprovalGates,
  type AgentConversationPolicy,
  type AgentDefinition,
  type AgentGuardrailRef,
  type AgentSpec,
  type AgentToolRef,
  defineAgent,
} from './define-agent.js';
export {
  type DiscoveryConfig,
  defineConfig,
  type KindgiConfig,
  PACK_LANGUAGES,
  type PackLanguage,
} from './define-config.js';
export { defineFlow, type FlowDefinition, type FlowEdge, type FlowNode, type FlowSpec } from './define-flow.js';
export {
  type AnyGuardrailDefinition,
  type CheckEvaluate,
  type CheckSpec,
  defineGuardrail,
  GUARDRAIL_ACTIONS,
  GUARDRAIL_SEVERITIES,
  type GuardrailConfigOf,
  type GuardrailDefinition,
  type GuardrailSpec,
  type InlineCheck,
} from './define-guardrail.js';
export {
  type AnyToolDefinition,
  defineTool,
  type HandlerInputOf,
  type HandlerOutputOf,
  type ToolDefinition,
  type ToolFields,
  type ToolSpec,
} from './define-tool.js';
export { type DefinitionSource, KindgiDefinitionError } from './definition-error.js';
export { PRIMITIVE_MARKER, type PrimitiveKind, primitiveKindOf } from './marker.js';
export type {
  HandlerContextOf,
  JsonSchemaValueOf,
  NeedsSpecArg,
  SecretSchemaArg,
  SecretsToolContext,
  SecretValueOf,
} from './needs-spec.js';
export type { JsonObject, JsonSchemaDocument, SchemaArg, ZodSchemaLike } from './schema-types.js';
