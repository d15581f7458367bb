import type { PostgresPool } from '@kindgi/store-postgres';
import { type CuttableRelay, type MotoServer, startMotoServer, startRelay } from '@kindgi/test-services/moto';
import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshPool, motoBackend, openStorage } from './backends.js';

let pg: TestPostgres;
let moto: MotoServer;
let relay: CuttableRelay;
let pool: PostgresPool;

beforeAll(async () => {
  [pg, moto] = await Promise.all([startPostgres(), startMotoServer()]);
  relay = await startRelay(moto.endpoint);
  pool = await freshPool(pg);
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await relay?.close();
  await Promise.all([moto?.stop(), pg?.stop()]);
});

const body = (value: string) => ({ name: value, contentType: 'text/plain', bytes: Buffer.from(value) });

it('the object store unreachable: bytes fail as blob-storage-error, metadata still answers, then it resumes', async () => {
  const config = await (await motoBackend(moto)).freshBackend();
  // Small bodies stay in PostgreSQL: with none kept inline, every body here needs the store.
  const storage = await openStorage({
    pool,
    backend: { ...config, endpoint: relay.endpoint },
    maxAttempts: 1,
    inlineMaxBytes: 0,
  });
  try {
    const kept = await storage.putByKey('t', 'b', 'kept', body('kept'));
    expect(kept.kind).toBe('ok');
    await relay.cut();
    const put = await storage.putByKey('t', 'b', 'during', body('during'));
    expect(put.kind === 'err' && put.error.code).toBe('blob-storage-error');
    const get = await storage.getByKey('t', 'b', 'kept');
    expect(get.kind === 'err' && get.error.code).toBe('blob-storage-error');
    expect((await storage.headByKey('t', 'b', 'kept')).kind).toBe('ok');
    // Nothing half-written became visible.
    expect(await storage.headByKey('t', 'b', 'during')).toEqual({ kind: 'ok', value: null });
    await relay.restore();
    const read = await storage.getByKey('t', 'b', 'kept');
    if (read.kind === 'err') throw new Error(read.error.message);
    expect(await new Response(read.value.stream).text()).toBe('kept');
    expect((await storage.putByKey('t', 'b', 'after', body('after'))).kind).toBe('ok');
  } finally {
    await relay.restore();
    await storage.close();
  }
});

it('PostgreSQL down: every call fails as blob-storage-error instead of hanging, then it resumes', async () => {
  const config = await (await motoBackend(moto)).freshBackend();
  const storage = await openStorage({ pool, backend: config });
  try {
    expect((await storage.putByKey('t2', 'b', 'kept', body('kept'))).kind).toBe('ok');
    await pg.halt();
    for (const result of [
      await storage.putByKey('t2', 'b', 'during', body('during')),
      await storage.headByKey('t2', 'b', 'kept'),
      await storage.getByKey('t2', 'b', 'kept'),
      await storage.listByPrefix('t2', 'b', {}),
      await storage.sweep(),
    ]) {
      expect(result.kind === 'err' && result.error.code).toBe('blob-storage-error');
    }
    await pg.start();
    const listing = await storage.listByPrefix('t2', 'b', {});
    expect(listing.kind === 'ok' && listing.value.contents.map((meta) => meta.key)).toEqual(['kept']);
    expect((await storage.putByKey('t2', 'b', 'after', body('after'))).kind).toBe('ok');
  } finally {
    await storage.close();
  }
});
