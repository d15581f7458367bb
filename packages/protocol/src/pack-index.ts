import type { INDEX_ENVELOPE_VERSION } from './constants.js';
import type { JsonSchema } from './schema/zod.js';

/** The environment variables a pack's code reads, as declared in its config. */
export interface PackEnvDeclaration {
  required?: string[];
  optional?: string[];
}

/** A declared side effect of a tool (`writes db:ledger`). */
export interface ToolEffect {
  kind: string;
  resource?: string;
  [extra: string]: unknown;
}

export interface IndexTool {
  id: string;
  version?: string;
  description?: string;
  input: JsonSchema;
  output: JsonSchema;
  /** Relative to the pack root, forward slashes, no `./`. */
  modulePath: string;
  mutating?: boolean;
  effects?: ToolEffect[];
  needs?: unknown;
  needsSpec?: unknown;
  sandbox?: string;
  limits?: Record<string, unknown>;
  network?: Record<string, unknown>;
  /** A tool with a `spec` runs in the runtime itself, not in the pack service. */
  spec?: unknown;
  [extra: string]: unknown;
}

export type GuardrailActionName = 'halt' | 'retry' | 'escalate' | 'log-only' | 'compensate';

export interface GuardrailAction {
  'on-violation': GuardrailActionName;
  [setting: string]: unknown;
}

export type GuardrailSeverity = 'info' | 'warn' | 'error' | 'critical';

export interface GuardrailScope {
  when?: 'always' | 'ci-only' | 'runtime-only';
  agents?: string[];
  flows?: string[];
  tenants?: string[];
}

export interface IndexGuardrail {
  id: string;
  name?: string;
  kind: string;
  action: GuardrailAction;
  severity?: GuardrailSeverity;
  scope?: GuardrailScope;
  checkModulePath: string;
  /** Defaults to `id`. */
  checkId?: string;
  configSchema?: JsonSchema;
  config?: Record<string, unknown>;
  [extra: string]: unknown;
}

export interface IndexAgent {
  id: string;
  version: string;
  modulePath: string;
  [extra: string]: unknown;
}

export interface IndexFlow {
  id: string;
  version: string;
  nodes: unknown[];
  edges: unknown[];
  kernelPayloadVersion: 1;
  modulePath: string;
  [extra: string]: unknown;
}

/** A pack's `index.json`: what its pack service serves and what the runtime reads. */
export interface PackIndex {
  v: typeof INDEX_ENVELOPE_VERSION;
  packId: string;
  packVersion: string;
  artifactVersion: string;
  /** ISO 8601 with milliseconds. */
  publishedAt: string;
  tools: IndexTool[];
  guardrails: IndexGuardrail[];
  agents: IndexAgent[];
  flows: IndexFlow[];
  /** Present only when the pack declares env; both lists sorted by code unit. */
  env?: PackEnvDeclaration;
}
