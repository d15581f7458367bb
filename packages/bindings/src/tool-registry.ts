import type { GuardrailAction, GuardrailScope, JsonSchema } from '@kindgi/protocol';

/** A tool a tenant can call, as the packs' indexes describe it. */
export interface ToolDescriptor {
  id: string;
  /** The pack serving the newest version (`versions[0]`); other versions may be in other packs. */
  packId: string;
  /** Every version served side by side; the newest first. */
  versions: string[];
  description?: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  mutating?: boolean;
  effects?: unknown[];
  /** The secrets the tool declares (`needsSpec.secrets` of its newest version): name → JSON Schema. */
  secrets?: Record<string, JsonSchema>;
}

/**
 * The pack a call for `version` of a described tool goes to, as far as the descriptor knows: its `packId`
 * serves the newest version, which is also what a call naming none gets. Another version's pack is not in
 * the descriptor (undefined: the router finds it).
 */
export function describedToolPack(tool: ToolDescriptor, version: string | undefined): string | undefined {
  return version === undefined || version === tool.versions[0] ? tool.packId : undefined;
}

/** A guardrail a tenant can evaluate. */
export interface GuardrailDescriptor {
  id: string;
  /** The pack serving the guardrail, and so its check: two packs may have checks of one id. */
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
