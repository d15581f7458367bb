import type { PackIndex } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import { describeIndexTools, ownIndexEntries } from '../src/index-registry.js';

function pack(packId: string, versions: string[]): PackIndex {
  return {
    v: 1,
    packId,
    packVersion: '0.0.1',
    artifactVersion: 'a',
    publishedAt: '2026-01-01T00:00:00.000Z',
    tools: versions.map((version) => ({
      id: 'p.tool',
      version,
      input: { type: 'object', title: version },
      output: { type: 'object' },
      modulePath: `tools/${version}.mjs`,
    })),
    guardrails: [],
    agents: [],
    flows: [],
  } as PackIndex;
}

describe('describeIndexTools: version order', () => {
  it('orders by SemVer precedence, newest first: a pre-release sorts below its release', () => {
    const [tool] = describeIndexTools([pack('p', ['1.0.0-rc.1', '1.0.0', '0.9.0', '1.10.0', '1.9.0', '1.0.0-rc.2'])]);
    expect(tool?.versions).toEqual(['1.10.0', '1.9.0', '1.0.0', '1.0.0-rc.2', '1.0.0-rc.1', '0.9.0']);
    expect(tool?.inputSchema).toEqual({ type: 'object', title: '1.10.0' });
  });

  it('advertises the release, not the pre-release, when a registry holds both', () => {
    const [tool] = describeIndexTools([pack('p', ['1.0.0']), pack('q', ['1.0.0-rc.1'])]);
    expect(tool?.versions).toEqual(['1.0.0', '1.0.0-rc.1']);
    expect(tool?.packId).toBe('p');
    expect(tool?.inputSchema).toEqual({ type: 'object', title: '1.0.0' });
  });

  it('puts versions that are not SemVer below SemVer ones, by code unit among themselves', () => {
    const [tool] = describeIndexTools([pack('p', ['b-build', '2.0.0', 'a-build'])]);
    expect(tool?.versions).toEqual(['2.0.0', 'b-build', 'a-build']);
  });
});

describe('ownIndexEntries: ids belong to their pack', () => {
  const tool = (id: string) => ({ id, input: {}, output: {}, modulePath: 'tools/t.mjs' });
  const guardrail = (id: string, checkId?: string) => ({
    id,
    kind: 'zero-llm',
    action: { 'on-violation': 'log-only' as const },
    checkModulePath: 'guardrails/g.mjs',
    ...(checkId === undefined ? {} : { checkId }),
  });
  const index = (tools: string[], guardrails: ReturnType<typeof guardrail>[]) =>
    ({ ...pack('mal', []), tools: tools.map(tool), guardrails }) as PackIndex;

  it('keeps an index whose every id starts with its pack id, as it is', () => {
    const owned = index(['mal.echo'], [guardrail('mal.g', 'mal.checks.g'), guardrail('mal.h')]);
    expect(ownIndexEntries(owned)).toEqual({ index: owned, refused: [] });
  });

  it("refuses another pack's ids, a bare id and a prefix-only id, and keeps the rest", () => {
    const mixed = index(
      ['acme.echo', 'echo', 'mal.', 'mal.echo', 'malware.echo'],
      [guardrail('acme.g', 'mal.checks.g'), guardrail('mal.g', 'acme.checks.citations'), guardrail('mal.ok')],
    );
    const { index: kept, refused } = ownIndexEntries(mixed);
    expect(kept.tools.map((entry) => entry.id)).toEqual(['mal.echo']);
    expect(kept.guardrails.map((entry) => entry.id)).toEqual(['mal.ok']);
    expect(refused).toEqual([
      { kind: 'tool', id: 'acme.echo', foreignId: 'acme.echo' },
      { kind: 'tool', id: 'echo', foreignId: 'echo' },
      { kind: 'tool', id: 'mal.', foreignId: 'mal.' },
      { kind: 'tool', id: 'malware.echo', foreignId: 'malware.echo' },
      { kind: 'guardrail', id: 'acme.g', foreignId: 'acme.g' },
      { kind: 'guardrail', id: 'mal.g', foreignId: 'acme.checks.citations' },
    ]);
    expect(mixed.tools).toHaveLength(5);
  });

  it('lets a guardrail name a shared (built-in) check id', () => {
    const builtIn = index([], [guardrail('mal.cites', 'must-cite')]);
    expect(ownIndexEntries(builtIn, ['must-cite']).refused).toEqual([]);
    expect(ownIndexEntries(builtIn).refused).toEqual([{ kind: 'guardrail', id: 'mal.cites', foreignId: 'must-cite' }]);
  });
});
