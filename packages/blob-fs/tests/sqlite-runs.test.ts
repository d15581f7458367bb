import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunRecord } from '@kindgi/bindings';
import { afterEach, expect, it } from 'vitest';
import { createSqliteRunStore } from '../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kindgi-runs-'));
  dirs.push(dir);
  return dir;
}

const run = (runId: string, toolId = 'tool.a', tenantId = 't1'): RunRecord => ({
  runId,
  tenantId,
  toolId,
  status: 'queued',
  input: { q: runId },
  guardrails: [],
  violations: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

function value<T>(result: { kind: 'ok'; value: T } | { kind: 'err'; error: unknown }): T {
  if (result.kind === 'err') throw new Error(JSON.stringify(result.error));
  return result.value;
}

it('runs, updates and event journals survive closing and reopening', async () => {
  const dataDir = freshDir();
  const before = createSqliteRunStore(dataDir);
  value(await before.create(run('r1')));
  value(await before.update('t1', 'r1', { status: 'running', startedAt: '2026-01-01T00:00:01.000Z' }));
  expect(value(await before.appendEvent('t1', 'r1', { kind: 'started', data: { at: 1 } })).sequence).toBe(1);
  expect(value(await before.appendEvent('t1', 'r1', { kind: 'progress', data: null })).sequence).toBe(2);
  before.close();
  const after = createSqliteRunStore(dataDir);
  try {
    const stored = value(await after.get('t1', 'r1'));
    expect(stored).toMatchObject({
      runId: 'r1',
      status: 'running',
      input: { q: 'r1' },
      startedAt: '2026-01-01T00:00:01.000Z',
    });
    expect(stored?.updatedAt).not.toBe('2026-01-01T00:00:00.000Z');
    expect(value(await after.appendEvent('t1', 'r1', { kind: 'done', data: { output: 42 } })).sequence).toBe(3);
    const events = value(await after.listEvents('t1', 'r1', 1));
    expect(events.map((event) => [event.sequence, event.kind, event.data])).toEqual([
      [2, 'progress', null],
      [3, 'done', { output: 42 }],
    ]);
  } finally {
    after.close();
  }
});

it('refuses duplicates and unknown runs with typed errors', async () => {
  const store = createSqliteRunStore(freshDir());
  try {
    value(await store.create(run('r1')));
    expect(await store.create(run('r1'))).toMatchObject({ kind: 'err', error: { code: 'run-already-exists' } });
    expect(value(await store.create(run('r1', 'tool.a', 't2'))).tenantId).toBe('t2');
    expect(value(await store.get('t1', 'nope'))).toBeNull();
    expect(await store.update('t1', 'nope', { status: 'failed' })).toMatchObject({
      kind: 'err',
      error: { code: 'run-not-found' },
    });
    expect(await store.appendEvent('t1', 'nope', { kind: 'x', data: 1 })).toMatchObject({
      kind: 'err',
      error: { code: 'run-not-found' },
    });
    expect(await store.list('t1', {}, 'garbage', 10)).toMatchObject({
      kind: 'err',
      error: { code: 'run-store-error' },
    });
  } finally {
    store.close();
  }
});

it('lists newest first with filters and a cursor; tenants are isolated', async () => {
  const store = createSqliteRunStore(freshDir());
  try {
    for (let i = 0; i < 5; i++) value(await store.create(run(`r${i}`, i % 2 === 0 ? 'even' : 'odd')));
    value(await store.create(run('other', 'even', 't2')));
    value(await store.update('t1', 'r2', { status: 'completed', output: { ok: true } }));
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = value(await store.list('t1', {}, cursor, 2));
      seen.push(...page.data.map((record) => record.runId));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(['r4', 'r3', 'r2', 'r1', 'r0']);
    expect(value(await store.list('t1', { toolId: 'even' }, undefined, 10)).data.map((r) => r.runId)).toEqual([
      'r4',
      'r2',
      'r0',
    ]);
    expect(value(await store.list('t1', { status: 'completed' }, undefined, 10)).data.map((r) => r.runId)).toEqual([
      'r2',
    ]);
    expect(value(await store.list('t2', {}, undefined, 10)).data.map((r) => r.runId)).toEqual(['other']);
    expect(value(await store.get('t2', 'r1'))).toBeNull();
  } finally {
    store.close();
  }
});

it('concurrent appends get distinct consecutive sequence numbers', async () => {
  const store = createSqliteRunStore(freshDir());
  try {
    value(await store.create(run('r1')));
    const appended = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.appendEvent('t1', 'r1', { kind: 'tick', data: i })),
    );
    expect(appended.map((result) => value(result).sequence).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  } finally {
    store.close();
  }
});

it('fails the runs a previous process left unfinished, journaling run.failed', async () => {
  const dataDir = freshDir();
  const before = createSqliteRunStore(dataDir);
  value(await before.create(run('queued-run')));
  value(await before.create(run('running-run', 'tool.a', 't2')));
  value(await before.update('t2', 'running-run', { status: 'running' }));
  value(await before.create(run('done-run')));
  value(await before.update('t1', 'done-run', { status: 'completed', output: 1 }));
  before.close();

  const after = createSqliteRunStore(dataDir);
  try {
    const failed = value(after.failInterruptedRuns());
    expect(failed.map((r) => [r.tenantId, r.runId, r.status, r.error?.code])).toEqual([
      ['t1', 'queued-run', 'failed', 'run-interrupted'],
      ['t2', 'running-run', 'failed', 'run-interrupted'],
    ]);
    expect(value(await after.get('t1', 'done-run'))?.status).toBe('completed');
    const events = value(await after.listEvents('t2', 'running-run', 0));
    expect(events.at(-1)).toMatchObject({ kind: 'run.failed', data: { status: 'failed' } });
    expect(value(after.failInterruptedRuns())).toEqual([]);
  } finally {
    after.close();
  }
});
