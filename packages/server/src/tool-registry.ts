import type { GuardrailDescriptor, ToolDescriptor, ToolRegistry } from '@kindgi/bindings';
import type { IndexTool, PackIndex } from '@kindgi/protocol';

function compareVersionsDescending(a: string, b: string): number {
  const pa = a.split(/[.+-]/).map((part) => Number.parseInt(part, 10));
  const pb = b.split(/[.+-]/).map((part) => Number.parseInt(part, 10));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? 0;
    const y = pb[i] ?? 0;
    if (Number.isNaN(x) || Number.isNaN(y)) return b.localeCompare(a);
    if (x !== y) return y - x;
  }
  return 0;
}

function describeTool(packId: string, entries: IndexTool[]): ToolDescriptor {
  const sorted = [...entries].sort((a, b) => compareVersionsDescending(a.version ?? '0', b.version ?? '0'));
  const newest = sorted[0] as IndexTool;
  const descriptor: ToolDescriptor = {
    id: newest.id,
    packId,
    versions: sorted.map((entry) => entry.version).filter((v): v is string => typeof v === 'string'),
    inputSchema: newest.input,
    outputSchema: newest.output,
  };
  if (newest.description !== undefined) descriptor.description = newest.description;
  if (newest.mutating !== undefined) descriptor.mutating = newest.mutating;
  if (newest.effects !== undefined) descriptor.effects = newest.effects;
  return descriptor;
}

/** Which pack serves each tool id and each check id, and what they look like. */
export interface IndexCatalog {
  registry: ToolRegistry;
  /** The pack serving a tool id. */
  packForTool(toolId: string): string | undefined;
  /** The pack serving a check id. */
  packForCheck(checkId: string): string | undefined;
}

/**
 * A tool registry over the deployed packs' indexes. Every tenant of this deployment reaches every pack;
 * tools the runtime runs itself (a `spec`) are not listed, because no pack service serves them.
 */
export function createIndexCatalog(indexes: readonly PackIndex[]): IndexCatalog {
  const tools = new Map<string, ToolDescriptor>();
  const guardrails = new Map<string, GuardrailDescriptor>();
  const toolPacks = new Map<string, string>();
  const checkPacks = new Map<string, string>();
  for (const index of indexes) {
    const byId = new Map<string, IndexTool[]>();
    for (const tool of index.tools) {
      if (tool.spec !== undefined || tools.has(tool.id)) continue;
      byId.set(tool.id, [...(byId.get(tool.id) ?? []), tool]);
    }
    for (const [id, entries] of byId) {
      tools.set(id, describeTool(index.packId, entries));
      toolPacks.set(id, index.packId);
    }
    for (const guardrail of index.guardrails) {
      if (guardrails.has(guardrail.id)) continue;
      const checkId = guardrail.checkId ?? guardrail.id;
      const descriptor: GuardrailDescriptor = {
        id: guardrail.id,
        packId: index.packId,
        checkId,
        kind: guardrail.kind,
        action: guardrail.action,
        severity: guardrail.severity ?? 'error',
      };
      if (guardrail.name !== undefined) descriptor.name = guardrail.name;
      if (guardrail.scope !== undefined) descriptor.scope = guardrail.scope;
      if (guardrail.configSchema !== undefined) descriptor.configSchema = guardrail.configSchema;
      if (guardrail.config !== undefined) descriptor.config = guardrail.config;
      guardrails.set(guardrail.id, descriptor);
      if (!checkPacks.has(checkId)) checkPacks.set(checkId, index.packId);
    }
  }
  const toolList = [...tools.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  const guardrailList = [...guardrails.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  return {
    registry: {
      listTools: async () => toolList,
      getTool: async (_tenantId, toolId) => tools.get(toolId) ?? null,
      listGuardrails: async () => guardrailList,
      getGuardrail: async (_tenantId, guardrailId) => guardrails.get(guardrailId) ?? null,
    },
    packForTool: (toolId) => toolPacks.get(toolId),
    packForCheck: (checkId) => checkPacks.get(checkId),
  };
}
