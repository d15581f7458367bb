export { type BundleMap, checkBundleMap, MAX_BUNDLE_MAP_ENTRIES } from './bundle-map.js';
export { callDeadlineMs, silenceLimitMs } from './call-deadline.js';
export { canonicalJson, compareCodeUnits } from './canonical-json.js';
export {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_OUTPUT_BYTES,
  INDEX_ENVELOPE_VERSION,
  PACK_HEADERS,
  PACK_PROTOCOL_VERSION,
  RESERVED_CHECK_IDS,
  SILENCE_GRACE_MS,
} from './constants.js';
export {
  DISPATCH_ERROR_CODES,
  type DispatchErrorCode,
  HANDLER_ERROR_CODES,
  type HandlerErrorCode,
  isPackErrorCode,
  PACK_ERROR_CODES,
  PACK_TRANSPORT_ERROR_CODES,
  type PackErrorCode,
  type PackTransportError,
  type PackTransportErrorCode,
} from './error-codes.js';
export {
  validateHealthBody,
  validateIndexAgent,
  validateInfo,
  validatePackIndex,
  validateRequest,
  validateResponse,
  validateTransportErrorBody,
  type WireValidator,
} from './generated/validators.js';
export type { CheckBindings, LogFields, ToolContext, ToolLogger } from './handler-context.js';
export { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
export { isLogLevel, LOG_LEVELS, type LogLevel } from './log-level.js';
export type {
  CallContext,
  CheckInvokeRequest,
  CheckResult,
  CheckResultMessage,
  ErrorMessage,
  HealthBody,
  InvokeRequest,
  JsonValue,
  PackInfo,
  PackMessage,
  PackRequest,
  PackResponse,
  ProtocolVersion,
  ResultMessage,
  RunTrace,
  ToolRef,
  TransportErrorBody,
  ValidationIssue,
  WireCause,
  WireErrorCode,
} from './messages.js';
export type { PackCallOptions } from './pack-call-options.js';
export { type ResolvedPackEnv, validatePackEnvDeclaration } from './pack-env-declaration.js';
export { describeThrown, messageOf, type PackErrorExtra, packError, toWireCause } from './pack-error.js';
export { isPackId, PACK_ID_PATTERN } from './pack-id.js';
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
} from './pack-index.js';
export { type ParseResult, parsePackRequest, parsePackRequestText, parsePackResponse } from './parse.js';
export { err, isResult, ok, type Result } from './result.js';
export { type AjvOptions, createAjv } from './schema/ajv.js';
export { describeFirstIssue, issuesFromAjv, issuesFromZod, jsonPointer } from './schema/issues.js';
export {
  type CompiledValidator,
  type SchemaSide,
  ValidatorCache,
  type ValidatorCacheOptions,
} from './schema/validator-cache.js';
export {
  isZodSchema,
  type JsonSchema,
  type SchemaConversionError,
  type SchemaIo,
  toJSONSchemaSync,
} from './schema/zod.js';
export { isSecretName, SECRET_NAME_PATTERN } from './secret-name.js';
export {
  type BearerHeader,
  constantTimeEqual,
  parseBearer,
  secretDigest,
  secretMatcher,
} from './secrets.js';
export {
  formatTraceparent,
  formatTracestate,
  type HeaderValue,
  MAX_TRACEPARENT_CHARS,
  MAX_TRACESTATE_CHARS,
  parseTraceparent,
  parseTracestate,
} from './trace-context.js';
export { tracingRequested } from './tracing-env.js';
