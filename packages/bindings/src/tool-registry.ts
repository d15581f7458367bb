import type { GuardrailAction, GuardrailScope, JsonSchema } from '@kindgi/protocol';

/** A tool a tenant can call, as the packs' indexes describe it. */
export interface ToolDescriptor {
  id: string;
  packId: string;
  /** Every version served side by side; the newest first. */
  versions: string[];
  description?: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  mutating?: boolean;
  effects?: unknown[];
}

/** A guardrail a tenant can evaluate. */
export interface GuardrailDescriptor {
  id: string;
  packId: string;
  name?: string;
  checkId: string;
  kind: string;
  action: GuardrailAction;
  severity: string;
  scope?: GuardrailScope;
  configSchema?: JsonSchema;
  /** The values the check runs with when the caller gives none. */
  config?: Record<string, unknown>;
}

/** Lists what tools and guardrails a tenant reaches (e.g. from the deployed packs' indexes). */
export interface ToolRegistry {
  listTools(tenantId: string): Promise<ToolDescriptor[]>;
  getTool(tenantId: string, toolId: string): Promise<ToolDescriptor | null>;
  listGuardrails(tenantId: string): Promise<GuardrailDescriptor[]>;
  getGuardrail(tenantId: string, guardrailId: string): Promise<GuardrailDescriptor | null>;
}
