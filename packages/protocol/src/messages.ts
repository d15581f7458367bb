import type { PACK_PROTOCOL_VERSION } from './constants.js';
import type { PackErrorCode } from './error-codes.js';

/** A JSON value as it travels on the wire. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One reason a value failed its schema, in Ajv's shape (`keyword` is absent for Zod/pydantic failures). */
export interface ValidationIssue {
  instancePath: string;
  schemaPath?: string;
  keyword?: string;
  params?: Record<string, unknown>;
  message: string;
}

/** Who a call is for, as the runtime sends it. Unknown fields reach the handler untouched. */
export interface CallContext {
  tenantId: string;
  runId: string;
  projectId?: string | null;
  orgId?: string | null;
  requestId?: string;
  env?: Record<string, string>;
  secrets?: Record<string, unknown>;
  /** Reserved: empty today. */
  config?: Record<string, unknown>;
  /** Block id → values. */
  settings?: Record<string, Record<string, unknown>>;
  /** UUIDv5 over `[runId, stepScope, toolId(, modelCallId)]`. */
  idempotencyKey?: string;
  [extra: string]: unknown;
}

/** What a guardrail check evaluates: an agent turn (or a tool run) as recorded. */
export interface RunTrace {
  runId?: string;
  tenantId?: string;
  output?: unknown;
  userInput?: unknown;
  toolCalls?: unknown[];
  toolResults?: unknown[];
  modelCalls?: unknown[];
  mode?: 'runtime' | 'ci';
  [extra: string]: unknown;
}

export interface ToolRef {
  id: string;
  version?: string;
}

export interface InvokeRequest {
  v: typeof PACK_PROTOCOL_VERSION;
  kind: 'invoke';
  tool: ToolRef;
  input: unknown;
  ctx: CallContext;
}

export interface CheckInvokeRequest {
  v: typeof PACK_PROTOCOL_VERSION;
  kind: 'check-invoke';
  check: { id: string };
  config: Record<string, unknown>;
  trace: RunTrace;
}

export type PackRequest = InvokeRequest | CheckInvokeRequest;

export interface ResultMessage {
  v: typeof PACK_PROTOCOL_VERSION;
  kind: 'result';
  output: unknown;
}

/** A check's verdict. Fields beyond `passed` pass through unvalidated. */
export interface CheckResult {
  passed: boolean;
  reason?: string;
  judgeResponse?: unknown;
  attributes?: Record<string, unknown>;
  [extra: string]: unknown;
}

export interface CheckResultMessage {
  v: typeof PACK_PROTOCOL_VERSION;
  kind: 'check-result';
  result: CheckResult;
}

/** A thrown value on the wire: an Error as `{name, message, stack}`, a primitive as is, `undefined` as null. */
export type WireCause = { name: string; message: string; stack?: string } | JsonValue;

export interface ErrorMessage {
  v: typeof PACK_PROTOCOL_VERSION;
  kind: 'error';
  code: PackErrorCode;
  message: string;
  toolId?: string;
  checkId?: string;
  cause?: WireCause;
  issues?: ValidationIssue[];
}

export type PackResponse = ResultMessage | CheckResultMessage | ErrorMessage;

/** `GET /v1/info`: what a pack service serves (no `v`). */
export interface PackInfo {
  protocol: typeof PACK_PROTOCOL_VERSION;
  packId: string;
  packVersion: string;
  artifactVersion: string;
  tools: ToolRef[];
  checks: string[];
  /** Required env names without a value, sorted. Always present from our service. */
  missingEnv?: string[];
}
