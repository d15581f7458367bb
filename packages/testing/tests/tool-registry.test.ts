import type { PackIndex } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import { createInMemoryToolRegistry } from '../src/index.js';

const pack = (
  packId: string,
  packVersion: string,
  tools: PackIndex['tools'],
  guardrails: PackIndex['guardrails'] = [],
): PackIndex => ({
  v: 1,
  packId,
  packVersion,
  artifactVersion: 'a',
  publishedAt: '2026-01-01T00:00:00.000Z',
  tools,
  guardrails,
  agents: [],
  flows: [],
});

describe('createInMemoryToolRegistry', () => {
  it('merges versions of a tool newest first, with the newest schemas', async () => {
    const registry = createInMemoryToolRegistry([
      pack('p1', '1.9.0', [{ id: 'sum', input: { title: 'old' }, output: true, modulePath: 'a.js' }]),
      pack('p2', '1.10.0', [{ id: 'sum', input: { title: 'new' }, output: true, modulePath: 'a.js', mutating: true }]),
    ]);
    expect(await registry.getTool('any', 'sum')).toEqual({
      id: 'sum',
      packId: 'p2',
      versions: ['1.10.0', '1.9.0'],
      inputSchema: { title: 'new' },
      outputSchema: true,
      mutating: true,
    });
    expect(await registry.getTool('any', 'missing')).toBeNull();
  });

  it('describes guardrails with checkId defaulting to the id', async () => {
    const registry = createInMemoryToolRegistry({
      t1: [
        pack(
          'p1',
          '1.0.0',
          [],
          [
            { id: 'g1', kind: 'pii', action: { 'on-violation': 'halt' }, checkModulePath: 'g.js' },
            {
              id: 'g2',
              kind: 'x',
              action: { 'on-violation': 'escalate' },
              severity: 'info',
              checkId: 'c2',
              checkModulePath: 'g.js',
            },
          ],
        ),
      ],
    });
    expect(await registry.listGuardrails('t1')).toEqual([
      { id: 'g1', packId: 'p1', checkId: 'g1', kind: 'pii', action: { 'on-violation': 'halt' }, severity: 'error' },
      { id: 'g2', packId: 'p1', checkId: 'c2', kind: 'x', action: { 'on-violation': 'escalate' }, severity: 'info' },
    ]);
    expect(await registry.listGuardrails('t2')).toEqual([]);
    expect(await registry.getGuardrail('t1', 'g2')).toMatchObject({ checkId: 'c2' });
  });
});
