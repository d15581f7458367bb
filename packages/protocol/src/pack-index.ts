// The types of pack index v1 are generated from specs/pack-index.schema.json (src/generated/, by
// scripts/generate-wire.mjs); this module names them for the rest of the code base.
export type {
  AgentToolRef,
  ApprovalGates,
  ConversationPolicy,
  EnvName,
  GuardrailAction,
  GuardrailActionName,
  GuardrailScope,
  GuardrailSeverity,
  IndexAgent,
  IndexFlow,
  IndexGuardrail,
  IndexTool,
  JsonSchemaDocument,
  ModulePath,
  PackEnvDeclaration,
  PackIndex,
  ToolEffect,
} from './generated/pack-index.types.js';
