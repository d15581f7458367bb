import { createModelCatalog } from '@kindgi/agent-kernel';
import { type AgentRegistry, createIndexAgentRegistry, type ModelCatalog } from '@kindgi/bindings';
import { err, ok, type PackIndex, type Result } from '@kindgi/protocol';
import type { ServerConfig } from '../config/config.js';
import type { ServerPacks } from './packs.js';

/** What agent runs need of a server: its packs' agents and the configured models (none: agent runs are 501). */
export interface ServerAgents {
  registry: AgentRegistry;
  models?: ModelCatalog;
}

/**
 * The agents of the packs this server hosts, read from their current indexes (a remote pack's reindex
 * replaces its index, and the registry follows it on the next call).
 */
function hostedAgents(packs: ServerPacks): AgentRegistry {
  let indexes: PackIndex[] = [];
  let registry = createIndexAgentRegistry([]);
  const current = (): AgentRegistry => {
    const now = [...packs.hosts.values()].map((host) => host.index);
    if (now.length !== indexes.length || now.some((index, i) => index !== indexes[i])) {
      indexes = now;
      registry = createIndexAgentRegistry(now);
    }
    return registry;
  };
  return {
    listAgents: (tenantId) => current().listAgents(tenantId),
    getAgent: (tenantId, agentId) => current().getAgent(tenantId, agentId),
    listToolVersions: (tenantId, toolId) => current().listToolVersions(tenantId, toolId),
  };
}

/**
 * The hosted packs' agents, and the model catalog when `models` is configured (without it agent runs answer
 * 501); an entry whose `apiKeyEnv` names an unset variable refuses the start.
 */
export function serverAgents(
  config: ServerConfig,
  packs: ServerPacks,
  env: Readonly<Record<string, string | undefined>>,
): Result<ServerAgents, string> {
  const registry = hostedAgents(packs);
  if (config.models === undefined) return ok({ registry });
  const models = createModelCatalog(config.models, env);
  if (models.kind === 'err') return err(models.error);
  return ok({ registry, models: models.value });
}
