import type { PackIndex } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import { describeIndexTools } from '../src/index-registry.js';

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
