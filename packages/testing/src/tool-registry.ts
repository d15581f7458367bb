import type { GuardrailDescriptor, ToolDescriptor, ToolRegistry } from '@kindgi/bindings';
import type { IndexGuardrail, IndexTool, PackIndex } from '@kindgi/protocol';

/** Pack indexes for every tenant, or per tenant id. */
export type RegistryPacks = PackIndex[] | Record<string, PackIndex[]>;

/**
 * A `ToolRegistry` read from pack index objects. A tool served by several packs (or versions) is one entry
 * with every version, newest first; its schemas are the newest version's.
 */
export function createInMemoryToolRegistry(packs: RegistryPacks): ToolRegistry {
  const packsFor = (tenantId: string): PackIndex[] => (Array.isArray(packs) ? packs : (packs[tenantId] ?? []));
  const tools = (tenantId: string): ToolDescriptor[] => {
    const byId = new Map<string, { tool: IndexTool; packId: string; version: string }[]>();
    for (const pack of packsFor(tenantId)) {
      for (const tool of pack.tools) {
        const list = byId.get(tool.id) ?? [];
        list.push({ tool, packId: pack.packId, version: tool.version ?? pack.packVersion });
        byId.set(tool.id, list);
      }
    }
    return [...byId.entries()].map(([id, entries]) => {
      entries.sort((a, b) => compareVersions(b.version, a.version));
      const newest = entries[0]!;
      const descriptor: ToolDescriptor = {
        id,
        packId: newest.packId,
        versions: [...new Set(entries.map((entry) => entry.version))],
        inputSchema: newest.tool.input,
        outputSchema: newest.tool.output,
      };
      if (newest.tool.description !== undefined) descriptor.description = newest.tool.description;
      if (newest.tool.mutating !== undefined) descriptor.mutating = newest.tool.mutating;
      if (newest.tool.effects !== undefined) descriptor.effects = newest.tool.effects;
      return descriptor;
    });
  };
  const guardrails = (tenantId: string): GuardrailDescriptor[] =>
    packsFor(tenantId).flatMap((pack) => pack.guardrails.map((guardrail) => describeGuardrail(pack.packId, guardrail)));

  return {
    async listTools(tenantId) {
      return tools(tenantId);
    },
    async getTool(tenantId, toolId) {
      return tools(tenantId).find((tool) => tool.id === toolId) ?? null;
    },
    async listGuardrails(tenantId) {
      return guardrails(tenantId);
    },
    async getGuardrail(tenantId, guardrailId) {
      return guardrails(tenantId).find((guardrail) => guardrail.id === guardrailId) ?? null;
    },
  };
}

function describeGuardrail(packId: string, guardrail: IndexGuardrail): GuardrailDescriptor {
  const descriptor: GuardrailDescriptor = {
    id: guardrail.id,
    packId,
    checkId: guardrail.checkId ?? guardrail.id,
    kind: guardrail.kind,
    action: guardrail.action,
    severity: guardrail.severity ?? 'error',
  };
  if (guardrail.name !== undefined) descriptor.name = guardrail.name;
  if (guardrail.scope !== undefined) descriptor.scope = guardrail.scope;
  if (guardrail.configSchema !== undefined) descriptor.configSchema = guardrail.configSchema;
  if (guardrail.config !== undefined) descriptor.config = guardrail.config;
  return descriptor;
}

/** Dotted numeric versions compare numerically part by part; anything else by code unit. */
function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/);
  const pb = b.split(/[.+-]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i += 1) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    if (x === y) continue;
    const nx = Number(x);
    const ny = Number(y);
    if (x !== '' && y !== '' && Number.isInteger(nx) && Number.isInteger(ny)) return nx - ny;
    return x < y ? -1 : 1;
  }
  return 0;
}
