import {
  compareCodeUnits,
  type IndexGuardrail,
  type IndexTool,
  type JsonSchema,
  type PackIndex,
} from '@kindgi/protocol';
import semver from 'semver';
import type { GuardrailDescriptor, ToolDescriptor, ToolRegistry } from './tool-registry.js';

/** Pack indexes for every tenant, or per tenant id. */
export type RegistryPacks = PackIndex[] | Record<string, PackIndex[]>;

/**
 * Orders versions by SemVer precedence (`1.0.0-rc.1` before `1.0.0`, `1.10.0` after `1.9.0`); a version
 * that is not SemVer sorts below every one that is, and among themselves by code unit.
 */
function compareVersions(a: string, b: string): number {
  const va = semver.valid(a);
  const vb = semver.valid(b);
  if (va !== null && vb !== null) return semver.compare(va, vb);
  if (va !== null) return 1;
  if (vb !== null) return -1;
  return compareCodeUnits(a, b);
}

/** A tool's version as a registry lists it and routes it: its own, else its pack's. */
export function indexToolVersion(pack: PackIndex, tool: IndexTool): string {
  return tool.version ?? pack.packVersion;
}

/**
 * The secrets an index tool declares (`needsSpec.secrets`: name → JSON Schema), or undefined when none.
 * Entries that are not objects are left out: the indexer checks declarations, this only reads them.
 */
export function declaredSecrets(tool: IndexTool): Record<string, JsonSchema> | undefined {
  const needs = tool.needsSpec;
  const secrets = needs !== null && typeof needs === 'object' ? (needs as { secrets?: unknown }).secrets : undefined;
  if (secrets === null || typeof secrets !== 'object' || Array.isArray(secrets)) return undefined;
  const out: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(secrets)) {
    if (schema !== null && typeof schema === 'object' && !Array.isArray(schema)) out[name] = schema as JsonSchema;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The tools of some packs' indexes as registry entries, sorted by id. A tool several packs (or versions)
 * serve is one entry with every version, newest first; its schemas are the newest version's. A tool's
 * version is its own, else its pack's. Tools with a `spec` are left out: the runtime runs those itself,
 * no pack service serves them.
 */
export function describeIndexTools(packs: readonly PackIndex[]): ToolDescriptor[] {
  const byId = new Map<string, { tool: IndexTool; packId: string; version: string }[]>();
  for (const pack of packs) {
    for (const tool of pack.tools) {
      if (tool.spec !== undefined) continue;
      const list = byId.get(tool.id) ?? [];
      list.push({ tool, packId: pack.packId, version: indexToolVersion(pack, tool) });
      byId.set(tool.id, list);
    }
  }
  const out = [...byId.entries()].map(([id, entries]) => {
    entries.sort((a, b) => compareVersions(b.version, a.version));
    const newest = entries[0] as (typeof entries)[number];
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
    const secrets = declaredSecrets(newest.tool);
    if (secrets !== undefined) descriptor.secrets = secrets;
    return descriptor;
  });
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
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

/** The guardrails of some packs' indexes as registry entries, in pack order; a repeated id keeps its first. */
export function describeIndexGuardrails(packs: readonly PackIndex[]): GuardrailDescriptor[] {
  const byId = new Map<string, GuardrailDescriptor>();
  for (const pack of packs) {
    for (const guardrail of pack.guardrails) {
      if (!byId.has(guardrail.id)) byId.set(guardrail.id, describeGuardrail(pack.packId, guardrail));
    }
  }
  return [...byId.values()];
}

/** An entry of an index whose id (or whose guardrail's check id) is not its pack's: `<packId>.` does not start it. */
export interface ForeignIndexEntry {
  kind: 'tool' | 'guardrail';
  id: string;
  /** The foreign id: the entry's own, or a guardrail's check id. */
  foreignId: string;
}

/** What `ownIndexEntries` kept of an index, and what it refused. */
export interface OwnedIndex {
  index: PackIndex;
  refused: ForeignIndexEntry[];
}

/**
 * The index with only the entries its pack owns: every tool id, guardrail id and guardrail check id starts
 * with `<packId>.`. Ids are one space shared by every pack of a deployment, and the registry routes a tool
 * id to the pack serving its newest version, so an entry under another pack's prefix could take over that
 * pack's calls (and their inputs). `sharedCheckIds` are check ids no pack owns (the runtime's built-ins),
 * which any guardrail may name. Agents and flows are left as they are (nothing routes calls to them).
 */
export function ownIndexEntries(index: PackIndex, sharedCheckIds: readonly string[] = []): OwnedIndex {
  const prefix = `${index.packId}.`;
  const owned = (id: string) => id.startsWith(prefix) && id.length > prefix.length;
  const refused: ForeignIndexEntry[] = [];
  const tools = index.tools.filter((tool) => {
    if (owned(tool.id)) return true;
    refused.push({ kind: 'tool', id: tool.id, foreignId: tool.id });
    return false;
  });
  const guardrails = index.guardrails.filter((guardrail) => {
    const checkId = guardrail.checkId ?? guardrail.id;
    const checkOwned = owned(checkId) || sharedCheckIds.includes(checkId);
    if (owned(guardrail.id) && checkOwned) return true;
    refused.push({ kind: 'guardrail', id: guardrail.id, foreignId: owned(guardrail.id) ? checkId : guardrail.id });
    return false;
  });
  return refused.length === 0 ? { index, refused } : { index: { ...index, tools, guardrails }, refused };
}

interface RegistryView {
  tools: ToolDescriptor[];
  toolsById: Map<string, ToolDescriptor>;
  guardrails: GuardrailDescriptor[];
  guardrailsById: Map<string, GuardrailDescriptor>;
}

/**
 * A `ToolRegistry` read from pack indexes: the same packs for every tenant, or packs per tenant id. The
 * indexes are read once per tenant view (lookups are on every tool call's path); build a new registry
 * when the indexes change.
 */
export function createIndexToolRegistry(packs: RegistryPacks): ToolRegistry {
  const views = new Map<string, RegistryView>();
  const viewFor = (tenantId: string): RegistryView => {
    // Tenants without packs share one empty view, so the cache holds at most one view per listed tenant.
    const key = Array.isArray(packs) ? '' : Object.hasOwn(packs, tenantId) ? `t:${tenantId}` : 'none';
    let view = views.get(key);
    if (!view) {
      const list = Array.isArray(packs) ? packs : key === 'none' ? [] : (packs[tenantId] ?? []);
      const tools = describeIndexTools(list);
      const guardrails = describeIndexGuardrails(list);
      view = {
        tools,
        toolsById: new Map(tools.map((tool) => [tool.id, tool])),
        guardrails,
        guardrailsById: new Map(guardrails.map((guardrail) => [guardrail.id, guardrail])),
      };
      views.set(key, view);
    }
    return view;
  };
  return {
    listTools: async (tenantId) => viewFor(tenantId).tools,
    getTool: async (tenantId, toolId) => viewFor(tenantId).toolsById.get(toolId) ?? null,
    listGuardrails: async (tenantId) => viewFor(tenantId).guardrails,
    getGuardrail: async (tenantId, guardrailId) => viewFor(tenantId).guardrailsById.get(guardrailId) ?? null,
  };
}
