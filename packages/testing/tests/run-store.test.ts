import type { RunRecord } from '@kindgi/bindings';
import { describe, expect, it } from 'vitest';
import { createInMemoryRunStore } from '../src/index.js';

const run = (runId: string, createdAt: string, extra: Partial<RunRecord> = {}): RunRecord => ({
  runId,
  tenantId: 't1',
  toolId: 'echo',
  status: 'running',
  input: { a: 1 },
  guardrails: [],
  violations: [],
  createdAt,
  updatedAt: createdAt,
  ...extra,
});

describe('createInMemoryRunStore', () => {
  it('creates, gets per tenant, refuses duplicates, and copies on read', async () => {
    const store = createInMemoryRunStore();
    expect((await store.create(run('r1', '2026-01-01T00:00:00.000Z'))).kind).toBe('ok');
    expect(await store.create(run('r1', '2026-01-01T00:00:00.000Z'))).toMatchObject({
      error: { code: 'run-already-exists' },
    });
    const got = await store.get('t1', 'r1');
    if (got.kind !== 'ok' || got.value === null) throw new Error('expected the run');
    (got.value.input as { a: number }).a = 99;
    expect(await store.get('t1', 'r1')).toMatchObject({ value: { input: { a: 1 } } });
    expect(await store.get('t2', 'r1')).toEqual({ kind: 'ok', value: null });
  });

  it('updates with updatedAt from its clock; run-not-found for a missing run', async () => {
    const store = createInMemoryRunStore({ now: () => new Date('2026-02-02T00:00:00.000Z') });
    await store.create(run('r1', '2026-01-01T00:00:00.000Z'));
    const updated = await store.update('t1', 'r1', { status: 'completed', output: 5 });
    expect(updated).toMatchObject({ value: { status: 'completed', output: 5, updatedAt: '2026-02-02T00:00:00.000Z' } });
    expect(await store.update('t1', 'nope', { status: 'failed' })).toMatchObject({ error: { code: 'run-not-found' } });
  });

  it('lists newest first with filters and cursors', async () => {
    const store = createInMemoryRunStore();
    await store.create(run('r1', '2026-01-01T00:00:00.000Z'));
    await store.create(run('r2', '2026-01-02T00:00:00.000Z', { status: 'failed' }));
    await store.create(run('r3', '2026-01-03T00:00:00.000Z', { toolId: 'other' }));
    await store.create({ ...run('r4', '2026-01-04T00:00:00.000Z'), tenantId: 't2' });
    const first = await store.list('t1', {}, undefined, 2);
    if (first.kind !== 'ok') throw new Error('list failed');
    expect(first.value.data.map((r) => r.runId)).toEqual(['r3', 'r2']);
    const second = await store.list('t1', {}, first.value.nextCursor, 2);
    expect(second).toEqual({ kind: 'ok', value: { data: [expect.objectContaining({ runId: 'r1' })] } });
    const failed = await store.list('t1', { status: 'failed' }, undefined, 10);
    expect(failed.kind === 'ok' && failed.value.data.map((r) => r.runId)).toEqual(['r2']);
    const byTool = await store.list('t1', { toolId: 'echo' }, undefined, 10);
    expect(byTool.kind === 'ok' && byTool.value.data.map((r) => r.runId)).toEqual(['r2', 'r1']);
    expect(await store.list('t1', {}, 'unknown', 10)).toMatchObject({ error: { code: 'run-store-error' } });
  });

  it('journals events with sequences from 1 and lists after a sequence', async () => {
    const store = createInMemoryRunStore();
    await store.create(run('r1', '2026-01-01T00:00:00.000Z'));
    await store.appendEvent('t1', 'r1', { kind: 'run.started', data: {} });
    await store.appendEvent('t1', 'r1', { kind: 'run.completed', data: { ok: true } });
    const after = await store.listEvents('t1', 'r1', 1);
    expect(after).toMatchObject({ value: [{ runId: 'r1', sequence: 2, kind: 'run.completed', data: { ok: true } }] });
    expect(await store.appendEvent('t2', 'r1', { kind: 'x', data: null })).toMatchObject({
      error: { code: 'run-not-found' },
    });
    expect(await store.listEvents('t2', 'r1', 0)).toMatchObject({ error: { code: 'run-not-found' } });
  });
});
