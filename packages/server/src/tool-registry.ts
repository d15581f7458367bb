import {
  createIndexToolRegistry,
  describeIndexGuardrails,
  describeIndexTools,
  type ToolRegistry,
} from '@kindgi/bindings';
import type { PackIndex } from '@kindgi/protocol';

/** Which pack serves each tool id and each check id, and what they look like. */
export interface IndexCatalog {
  registry: ToolRegistry;
  /** The pack serving a tool id. */
  packForTool(toolId: string): string | undefined;
  /** The pack serving a check id. */
  packForCheck(checkId: string): string | undefined;
}

/**
 * The deployed packs' indexes as the API's tool registry (every tenant of this deployment reaches every
 * pack), plus the routing of a call to the pack that serves it.
 */
export function createIndexCatalog(indexes: readonly PackIndex[]): IndexCatalog {
  const packs = [...indexes];
  const toolPacks = new Map(describeIndexTools(packs).map((tool) => [tool.id, tool.packId]));
  const checkPacks = new Map<string, string>();
  for (const guardrail of describeIndexGuardrails(packs)) {
    if (!checkPacks.has(guardrail.checkId)) checkPacks.set(guardrail.checkId, guardrail.packId);
  }
  return {
    registry: createIndexToolRegistry(packs),
    packForTool: (toolId) => toolPacks.get(toolId),
    packForCheck: (checkId) => checkPacks.get(checkId),
  };
}
