import {
  type PackCaller,
  type RunCheckBinding,
  type RunHandlerBinding,
  type ToolRegistry,
  toRunCheck,
  toRunHandler,
} from '@kindgi/bindings';
import { type JsonSchema, ok, type PackIndex, packError, type ToolRef } from '@kindgi/protocol';
import type { PackHost } from '../packs/pack-host.js';
import type { IndexCatalog } from '../packs/tool-registry.js';

/** The API's view of the deployed packs: what they serve, and the calls routed to the pack serving each. */
export interface PackRouting {
  registry: ToolRegistry;
  runHandler: RunHandlerBinding;
  runCheck: RunCheckBinding;
  /** The secrets the tool a call reaches declares, from the index of the pack serving that version. */
  declaredSecrets(tool: ToolRef): Record<string, JsonSchema> | undefined;
}

/**
 * The tool reference as the serving pack's own index names it. The registry versions a tool that names no
 * version by its pack (`1.4.0` for an unversioned tool of pack 1.4.0), but a pack service keys such a tool
 * as unversioned and refuses a call naming a version (`tool-version-mismatch`). So a version that only the
 * pack version gives is dropped; a tool with a version of its own keeps the one asked for.
 */
export function toolRefForPack(index: PackIndex, ref: ToolRef): ToolRef {
  if (ref.version === undefined || index.packVersion !== ref.version) return ref;
  const entries = index.tools.filter((tool) => tool.id === ref.id && tool.spec === undefined);
  const ownVersion = entries.some((tool) => tool.version === ref.version);
  const unversioned = entries.filter((tool) => tool.version === undefined).length;
  return !ownVersion && unversioned === 1 && entries.length === 1 ? { id: ref.id } : ref;
}

/**
 * The routing layer of the pack-call pipeline: each call goes to the pipeline of the host serving it, by the
 * caller's pack hint when it names a pack served here, else by `catalog()` (read on every call: a re-indexed
 * pack replaces it). Tools route by id and version, so an older version reaches the pack that has it.
 */
export function routeToHosts(hosts: ReadonlyMap<string, PackHost>, catalog: () => IndexCatalog): PackCaller {
  const hinted = (packId: string | undefined) => (packId === undefined ? undefined : hosts.get(packId));
  return async (call) => {
    if (call.kind === 'check') {
      const host = hinted(call.packId) ?? hosts.get(catalog().packForCheck(call.check.id) ?? '');
      if (host) return host.call(call);
      const checkId = call.check.id;
      return ok(packError('check-not-in-pack', `No deployed pack has a check "${checkId}"`, { checkId }));
    }
    const host = hinted(call.packId) ?? hosts.get(catalog().packForTool(call.tool.id, call.tool.version) ?? '');
    if (!host) {
      const version = call.tool.version === undefined ? '' : ` at version ${call.tool.version}`;
      const toolId = call.tool.id;
      return ok(packError('tool-not-in-pack', `No deployed pack has a tool "${toolId}"${version}`, { toolId }));
    }
    const tool = toolRefForPack(host.index, call.tool);
    return host.call(tool === call.tool ? call : { ...call, tool });
  };
}

/** The API's bindings over the routing layer, with the registry read from the same catalog. */
export function routePackCalls(hosts: ReadonlyMap<string, PackHost>, catalog: () => IndexCatalog): PackRouting {
  const callPack = routeToHosts(hosts, catalog);
  const runHandler: RunHandlerBinding = toRunHandler(callPack);
  const runCheck: RunCheckBinding = toRunCheck(callPack);
  const registry: ToolRegistry = {
    listTools: (tenantId) => catalog().registry.listTools(tenantId),
    getTool: (tenantId, toolId) => catalog().registry.getTool(tenantId, toolId),
    listGuardrails: (tenantId) => catalog().registry.listGuardrails(tenantId),
    getGuardrail: (tenantId, id) => catalog().registry.getGuardrail(tenantId, id),
  };
  const declaredSecrets = (tool: ToolRef) => catalog().secretsFor(tool.id, tool.version);
  return { registry, runHandler, runCheck, declaredSecrets };
}
