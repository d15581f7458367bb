import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IdempotencyEntry } from '@kindgi/bindings';
import { afterEach, expect, it } from 'vitest';
import { createSqliteIdempotencyStore, openKindgiDatabase } from '../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kindgi-idem-'));
  dirs.push(dir);
  return dir;
}

const entry = (text: string, expiresAt = Date.now() + 60_000): IdempotencyEntry => ({
  bodyHash: 'h'.repeat(64),
  status: 201,
  contentType: 'application/json',
  bodyText: JSON.stringify({ text }),
  expiresAt,
});

it('a stored answer survives closing and reopening the database (a restart mid-retries)', async () => {
  const dataDir = freshDir();
  const before = createSqliteIdempotencyStore(dataDir);
  expect(await before.get('t1 POST /v1/runs k1')).toBeNull();
  await before.set('t1 POST /v1/runs k1', entry('first'));
  before.close();
  const after = createSqliteIdempotencyStore(dataDir);
  try {
    expect(await after.get('t1 POST /v1/runs k1')).toEqual(
      entry('first', (await after.get('t1 POST /v1/runs k1'))!.expiresAt),
    );
    const held = await after.holds!.hold('t1 POST /v1/runs k1', {
      holder: 'h2',
      bodyHash: 'x',
      expiresAt: Date.now() + 1000,
    });
    expect(held).toMatchObject({ kind: 'stored', entry: { bodyText: JSON.stringify({ text: 'first' }) } });
  } finally {
    after.close();
  }
});

it('the first answer wins; an expired one counts as absent and may be replaced', async () => {
  let now = 1_000_000;
  const store = createSqliteIdempotencyStore(freshDir(), () => now);
  try {
    await store.set('k', entry('one', now + 100));
    await store.set('k', entry('two', now + 100));
    expect((await store.get('k'))?.bodyText).toBe(JSON.stringify({ text: 'one' }));
    now += 100;
    expect(await store.get('k')).toBeNull();
    await store.set('k', entry('three', now + 100));
    expect((await store.get('k'))?.bodyText).toBe(JSON.stringify({ text: 'three' }));
  } finally {
    store.close();
  }
});

it('holds refuse a concurrent repeat, survive a restart, and end on release or expiry', async () => {
  const dataDir = freshDir();
  let now = 5_000;
  const first = createSqliteIdempotencyStore(dataDir, () => now);
  const claim = (holder: string, bodyHash = 'b1') => ({ holder, bodyHash, expiresAt: now + 1000 });
  expect(await first.holds!.hold('k', claim('A'))).toEqual({ kind: 'held' });
  expect(await first.holds!.hold('k', claim('B', 'b2'))).toEqual({ kind: 'in-flight', bodyHash: 'b1' });
  expect(await first.holds!.hold('k', claim('A'))).toEqual({ kind: 'held' });
  first.close();
  const second = createSqliteIdempotencyStore(dataDir, () => now);
  try {
    expect(await second.holds!.hold('k', claim('B'))).toEqual({ kind: 'in-flight', bodyHash: 'b1' });
    await second.holds!.release('k', 'B');
    expect(await second.holds!.hold('k', claim('B'))).toMatchObject({ kind: 'in-flight' });
    await second.holds!.renew('k', 'A', now + 5000);
    now += 2000;
    expect(await second.holds!.hold('k', claim('B'))).toMatchObject({ kind: 'in-flight' });
    now += 4000;
    expect(await second.holds!.hold('k', claim('B'))).toEqual({ kind: 'held' });
    await second.holds!.release('k', 'B');
    expect(await second.holds!.hold('k', claim('C'))).toEqual({ kind: 'held' });
    await second.set('k', entry('done', now + 1000));
    expect(await second.holds!.hold('k', claim('D'))).toMatchObject({ kind: 'stored' });
  } finally {
    second.close();
  }
});

it('shares one database with other stores when given an open one', async () => {
  const db = openKindgiDatabase(freshDir());
  const store = createSqliteIdempotencyStore(db);
  await store.set('k', entry('x'));
  store.close();
  expect(db.open).toBe(true);
  expect(db.prepare('SELECT count(*) AS n FROM idempotency_entries').get()).toEqual({ n: 1 });
  db.close();
});
