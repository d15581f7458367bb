import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStores, type PostgresStores } from '../src/index.js';

let server: TestPostgres;
let a: PostgresStores;
let b: PostgresStores;
beforeAll(async () => {
  server = await startPostgres();
  const url = await server.createDatabase('idempotency');
  const opened = await Promise.all([openPostgresStores({ url }), openPostgresStores({ url })]);
  [a, b] = opened.map((result) => {
    if (result.kind === 'err') throw new Error(result.error.message);
    return result.value;
  }) as [PostgresStores, PostgresStores];
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await server?.stop();
});

const entry = (bodyText: string) => ({
  bodyHash: 'h1',
  status: 201,
  contentType: 'application/json',
  bodyText,
  expiresAt: Date.now() + 60_000,
});

describe('Postgres idempotency store', () => {
  it('gives one hold of a key to exactly one of many concurrent holders on two instances', async () => {
    const stores = [a.idempotencyStore, b.idempotencyStore];
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        stores[i % 2]?.holds?.hold('k-race', { holder: `h${i}`, bodyHash: 'h1', expiresAt: Date.now() + 60_000 }),
      ),
    );
    expect(outcomes.filter((o) => o?.kind === 'held')).toHaveLength(1);
    expect(outcomes.filter((o) => o?.kind === 'in-flight')).toHaveLength(19);
    const holder = `h${outcomes.findIndex((o) => o?.kind === 'held')}`;
    await stores[0]?.set('k-race', entry('first'));
    expect(
      await b.idempotencyStore.holds?.hold('k-race', {
        holder: 'late',
        bodyHash: 'h1',
        expiresAt: Date.now() + 60_000,
      }),
    ).toMatchObject({
      kind: 'stored',
      entry: { bodyText: 'first', status: 201 },
    });
    await a.idempotencyStore.holds?.release('k-race', holder);
  });

  it('keeps the first answer, replays it on the other instance, and frees an expired hold', async () => {
    await a.idempotencyStore.set('k1', entry('one'));
    await b.idempotencyStore.set('k1', entry('two'));
    expect(await b.idempotencyStore.get('k1')).toMatchObject({ bodyText: 'one', bodyHash: 'h1' });
    expect(await a.idempotencyStore.get('missing')).toBeNull();
    const holds = a.idempotencyStore.holds;
    expect(await holds?.hold('k2', { holder: 'x', bodyHash: 'h', expiresAt: Date.now() - 1 })).toEqual({
      kind: 'held',
    });
    expect(
      await b.idempotencyStore.holds?.hold('k2', { holder: 'y', bodyHash: 'h', expiresAt: Date.now() + 60_000 }),
    ).toEqual({
      kind: 'held',
    });
  });
});
