import type { AgentToolRef, ConversationPolicy, IndexAgent, JsonSchema, PackIndex } from '@kindgi/protocol';
import semver from 'semver';
import { declaredSecrets, indexToolVersion, type RegistryPacks } from './index-registry.js';

/** An agent a tenant can run, as its pack's index describes it. */
export interface AgentDescriptor {
  id: string;
  version: string;
  /** The pack that ships the agent. */
  packId: string;
  name?: string;
  description?: string;
  instructions: string;
  /** A model entry of the server's `models`; `default` when absent. */
  model?: string;
  capabilities?: string[];
  tools: AgentToolRef[];
  guardrails: string[];
  /** The tool failure codes the model is shown; every other failure fails the turn. */
  toolErrors: string[];
  conversationPolicy?: ConversationPolicy;
}

/** One served version of a tool, with that version's own schemas and declarations. */
export interface ToolVersionDescriptor {
  id: string;
  version: string;
  packId: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  mutating?: boolean;
  effects?: unknown[];
  secrets?: Record<string, JsonSchema>;
}

/** Lists the agents a tenant reaches, and every served version of a tool (what an agent turn resolves). */
export interface AgentRegistry {
  listAgents(tenantId: string): Promise<AgentDescriptor[]>;
  getAgent(tenantId: string, agentId: string): Promise<AgentDescriptor | null>;
  /** Every active version of a tool, newest first (SemVer precedence); none when no pack serves it. */
  listToolVersions(tenantId: string, toolId: string): Promise<ToolVersionDescriptor[]>;
}

function describeAgent(packId: string, agent: IndexAgent): AgentDescriptor {
  const descriptor: AgentDescriptor = {
    id: agent.id,
    version: agent.version,
    packId,
    instructions: agent.instructions ?? '',
    tools: agent.tools ?? [],
    guardrails: agent.guardrails ?? [],
    toolErrors: agent.toolErrors ?? [],
  };
  for (const field of ['name', 'description', 'model', 'capabilities', 'conversationPolicy'] as const) {
    if (agent[field] !== undefined) Object.assign(descriptor, { [field]: agent[field] });
  }
  return descriptor;
}

function newestFirst(a: { version: string }, b: { version: string }): number {
  const va = semver.valid(a.version);
  const vb = semver.valid(b.version);
  if (va !== null && vb !== null) return semver.rcompare(va, vb);
  return va !== null ? -1 : vb !== null ? 1 : 0;
}

interface AgentView {
  agents: AgentDescriptor[];
  agentsById: Map<string, AgentDescriptor>;
  toolVersions: Map<string, ToolVersionDescriptor[]>;
}

function buildView(packs: readonly PackIndex[]): AgentView {
  const agentsById = new Map<string, AgentDescriptor>();
  const toolVersions = new Map<string, ToolVersionDescriptor[]>();
  for (const pack of packs) {
    for (const agent of pack.agents) {
      const known = agentsById.get(agent.id);
      // An agent several packs ship is the one of the newest version (the first configured on a tie).
      if (!known || newestFirst(agent, known) < 0) agentsById.set(agent.id, describeAgent(pack.packId, agent));
    }
    for (const tool of pack.tools) {
      if (tool.spec !== undefined) continue;
      const version = indexToolVersion(pack, tool);
      const list = toolVersions.get(tool.id) ?? [];
      if (list.some((entry) => entry.version === version)) continue;
      const entry: ToolVersionDescriptor = {
        id: tool.id,
        version,
        packId: pack.packId,
        inputSchema: tool.input,
        outputSchema: tool.output,
      };
      if (tool.description !== undefined) entry.description = tool.description;
      if (tool.mutating !== undefined) entry.mutating = tool.mutating;
      if (tool.effects !== undefined) entry.effects = tool.effects;
      const secrets = declaredSecrets(tool);
      if (secrets !== undefined) entry.secrets = secrets;
      list.push(entry);
      toolVersions.set(tool.id, list);
    }
  }
  for (const list of toolVersions.values()) list.sort(newestFirst);
  const agents = [...agentsById.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { agents, agentsById, toolVersions };
}

/**
 * An `AgentRegistry` read from pack indexes, the same packs for every tenant or packs per tenant id (as
 * `createIndexToolRegistry` reads them). Build a new one when the indexes change.
 */
export function createIndexAgentRegistry(packs: RegistryPacks): AgentRegistry {
  const views = new Map<string, AgentView>();
  const viewFor = (tenantId: string): AgentView => {
    const key = Array.isArray(packs) ? '' : Object.hasOwn(packs, tenantId) ? `t:${tenantId}` : 'none';
    let view = views.get(key);
    if (!view) {
      view = buildView(Array.isArray(packs) ? packs : key === 'none' ? [] : (packs[tenantId] ?? []));
      views.set(key, view);
    }
    return view;
  };
  return {
    listAgents: async (tenantId) => viewFor(tenantId).agents,
    getAgent: async (tenantId, agentId) => viewFor(tenantId).agentsById.get(agentId) ?? null,
    listToolVersions: async (tenantId, toolId) => viewFor(tenantId).toolVersions.get(toolId) ?? [],
  };
}
