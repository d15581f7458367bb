import type { PackCaller, PackReply } from '@kindgi/bindings';
import type { PackIndex, PackResponse } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import type { PackHost } from '../src/packs/pack-host.js';
import { createIndexCatalog, type IndexCatalog } from '../src/packs/tool-registry.js';
import { routePackCalls, toolRefForPack } from '../src/start/routing.js';

function pack(packId: string, packVersion: string, tools: PackIndex['tools'], checkId = 'shared-check'): PackIndex {
  return {
    v: 1,
    packId,
    packVersion,
    artifactVersion: 'a1',
    publishedAt: '2026-01-01T00:00:00.000Z',
    tools,
    guardrails: [
      { id: `${packId}.guard`, checkId, kind: 'k', action: { 'on-violation': 'halt' }, checkModulePath: 'g.js' },
    ],
    agents: [],
    flows: [],
  };
}

const tool = (id: string, version?: string) => ({
  id,
  ...(version === undefined ? {} : { version }),
  input: true as const,
  output: true as const,
  modulePath: `tools/${id}.js`,
});

// `old` serves cite 1.0.0 (its own version) and lookup unversioned (its pack's 1.0.0); `next` serves cite 2.0.0.
const OLD = pack('old', '1.0.0', [tool('cite', '1.0.0'), tool('lookup')]);
const NEXT = pack('next', '2.0.0', [tool('cite', '2.0.0')]);

/** A host whose pipeline answers with the pack id it belongs to. */
function host(index: PackIndex): PackHost {
  const call: PackCaller = async () => ({
    kind: 'ok',
    value: { v: 2, kind: 'result', output: { packId: index.packId } } as PackResponse,
  });
  return { dir: `/packs/${index.packId}`, index, call, serving: true, close: async () => undefined };
}

describe('createIndexCatalog', () => {
  const catalog = createIndexCatalog([OLD, NEXT]);

  it("routes a tool id to its newest version's pack, and a version to the pack that has it", () => {
    expect(catalog.packForTool('cite')).toBe('next');
    expect(catalog.packForTool('cite', '2.0.0')).toBe('next');
    expect(catalog.packForTool('cite', '1.0.0')).toBe('old');
    expect(catalog.packForTool('cite', '3.0.0')).toBeUndefined();
  });

  it('versions a tool that names none by its pack, as the registry lists it', async () => {
    expect((await catalog.registry.getTool('t', 'lookup'))?.versions).toEqual(['1.0.0']);
    expect(catalog.packForTool('lookup', '1.0.0')).toBe('old');
  });
});

describe('routePackCalls', () => {
  const hosts = new Map([OLD, NEXT].map((index) => [index.packId, host(index)]));
  const routed = () => {
    const lookups: string[] = [];
    const real = createIndexCatalog([OLD, NEXT]);
    const catalog = (): IndexCatalog => {
      lookups.push('catalog');
      return real;
    };
    return { lookups, routing: routePackCalls(hosts, catalog) };
  };
  const ctx = { tenantId: 't', runId: 'r', requestId: 'q' };
  const packOf = (reply: PackReply) =>
    reply.kind === 'ok' && reply.value.kind === 'result' ? (reply.value.output as { packId: string }).packId : reply;

  it('sends a hinted call to the pack named, without looking the tool up again', async () => {
    const { lookups, routing } = routed();
    const reply = await routing.runHandler({ tool: { id: 'cite' }, input: {}, ctx, packId: 'old' });
    expect(packOf(reply)).toBe('old');
    expect(lookups).toEqual([]);
  });

  it('looks a call up by id and version without a hint, or with one naming no pack served here', async () => {
    const { lookups, routing } = routed();
    expect(packOf(await routing.runHandler({ tool: { id: 'cite', version: '1.0.0' }, input: {}, ctx }))).toBe('old');
    expect(packOf(await routing.runHandler({ tool: { id: 'cite' }, input: {}, ctx, packId: 'gone' }))).toBe('next');
    expect(lookups).toEqual(['catalog', 'catalog']);
  });

  it('answers tool-not-in-pack for a version no pack serves', async () => {
    const { routing } = routed();
    const reply = await routing.runHandler({ tool: { id: 'cite', version: '3.0.0' }, input: {}, ctx });
    expect(reply).toMatchObject({ kind: 'ok', value: { kind: 'error', code: 'tool-not-in-pack' } });
  });

  it("sends a check to the hinted pack, else to the check id's first pack", async () => {
    const { routing } = routed();
    const check = { check: { id: 'shared-check' }, config: {}, trace: { runId: 'r', tenantId: 't' } };
    expect(packOf(await routing.runCheck({ ...check, packId: 'next' }))).toBe('next');
    expect(packOf(await routing.runCheck(check))).toBe('old');
    const missing = await routing.runCheck({ ...check, check: { id: 'nope' } });
    expect(missing).toMatchObject({ kind: 'ok', value: { kind: 'error', code: 'check-not-in-pack' } });
  });
});

describe('toolRefForPack', () => {
  it("drops a version only the pack's version gives, so the pack finds its unversioned tool", () => {
    expect(toolRefForPack(OLD, { id: 'lookup', version: '1.0.0' })).toEqual({ id: 'lookup' });
  });

  it('keeps a version the tool names itself, any other version, and a call naming none', () => {
    expect(toolRefForPack(OLD, { id: 'cite', version: '1.0.0' })).toEqual({ id: 'cite', version: '1.0.0' });
    // Not the pack's version: the pack answers the mismatch itself.
    expect(toolRefForPack(OLD, { id: 'lookup', version: '9.9.9' })).toEqual({ id: 'lookup', version: '9.9.9' });
    expect(toolRefForPack(OLD, { id: 'lookup' })).toEqual({ id: 'lookup' });
  });

  it('keeps the version when the pack has the id both versioned and not (the pack must decide)', () => {
    const mixed = pack('mixed', '1.0.0', [tool('cite', '0.9.0'), tool('cite')]);
    expect(toolRefForPack(mixed, { id: 'cite', version: '1.0.0' })).toEqual({ id: 'cite', version: '1.0.0' });
  });

  it('sends the pack the reference its index names', async () => {
    const seen: unknown[] = [];
    const oldHost: PackHost = {
      ...host(OLD),
      call: async (call) => {
        if (call.kind === 'invoke') seen.push(call.tool);
        return { kind: 'ok', value: { v: 2, kind: 'result', output: null } };
      },
    };
    const routing = routePackCalls(new Map([['old', oldHost]]), () => createIndexCatalog([OLD]));
    await routing.runHandler({
      tool: { id: 'lookup', version: '1.0.0' },
      input: {},
      ctx: { tenantId: 't', runId: 'r' },
    });
    expect(seen).toEqual([{ id: 'lookup' }]);
  });
});
