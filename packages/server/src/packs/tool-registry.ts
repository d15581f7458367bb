import {
  createIndexToolRegistry,
  declaredSecrets,
  describeIndexGuardrails,
  describeIndexTools,
  indexToolVersion,
  type ToolRegistry,
} from '@kindgi/bindings';
import type { JsonSchema, PackIndex } from '@kindgi/protocol';

/** Which pack serves each tool id and each check id, and what they look like. */
export interface IndexCatalog {
  registry: ToolRegistry;
  /**
   * The pack serving a tool id at `version`; without one, the pack of its newest version (the one the
   * registry names). When several packs serve the same version, the first configured.
   */
  packForTool(toolId: string, version?: string): string | undefined;
  /** The pack serving a check id (the first configured, when several do). */
  packForCheck(checkId: string): string | undefined;
  /** The secrets the tool a call reaches declares (at `version`, else its newest): name → JSON Schema. */
  secretsFor(toolId: string, version?: string): Record<string, JsonSchema> | undefined;
}

/**
 * The first index of each pack id. A pack id is served once (the start refuses a second, a remote service
 * that changes its pack id is refused): this keeps a later index of a served id from merging into its tools.
 */
function onePerPackId(indexes: readonly PackIndex[]): PackIndex[] {
  const seen = new Set<string>();
  return indexes.filter((index) => {
    if (seen.has(index.packId)) return false;
    seen.add(index.packId);
    return true;
  });
}

/**
 * The deployed packs' indexes as the API's tool registry (every tenant of this deployment reaches every
 * pack), plus the routing of a call to the pack that serves it.
 */
export function createIndexCatalog(indexes: readonly PackIndex[]): IndexCatalog {
  const packs = onePerPackId(indexes);
  const described = describeIndexTools(packs);
  const newestPacks = new Map(described.map((tool) => [tool.id, tool.packId]));
  const newestSecrets = new Map(described.map((tool) => [tool.id, tool.secrets]));
  const versionPacks = new Map<string, Map<string, string>>();
  const versionSecrets = new Map<string, Map<string, Record<string, JsonSchema> | undefined>>();
  for (const pack of packs) {
    for (const tool of pack.tools) {
      // Tools with a spec are the runtime's own (describeIndexTools leaves them out too).
      if (tool.spec !== undefined) continue;
      const versions = versionPacks.get(tool.id) ?? new Map<string, string>();
      const version = indexToolVersion(pack, tool);
      if (!versions.has(version)) versions.set(version, pack.packId);
      versionPacks.set(tool.id, versions);
      const secrets = versionSecrets.get(tool.id) ?? new Map<string, Record<string, JsonSchema> | undefined>();
      if (!secrets.has(version)) secrets.set(version, declaredSecrets(tool));
      versionSecrets.set(tool.id, secrets);
    }
  }
  const checkPacks = new Map<string, string>();
  for (const guardrail of describeIndexGuardrails(packs)) {
    if (!checkPacks.has(guardrail.checkId)) checkPacks.set(guardrail.checkId, guardrail.packId);
  }
  const registry = createIndexToolRegistry(packs);
  // Its descriptors are built here, before this catalog replaces the serving one, not by the first call to
  // reach it (100k remote tools take about a second).
  void registry.listTools('');
  return {
    registry,
    packForTool: (toolId, version) =>
      version === undefined ? newestPacks.get(toolId) : versionPacks.get(toolId)?.get(version),
    packForCheck: (checkId) => checkPacks.get(checkId),
    secretsFor: (toolId, version) =>
      version === undefined ? newestSecrets.get(toolId) : versionSecrets.get(toolId)?.get(version),
  };
}
