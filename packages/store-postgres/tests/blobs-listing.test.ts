import { randomUUID } from 'node:crypto';
import { type BlobMeta, type ListByPrefixInput, listByPrefixOverScan } from '@kindgi/bindings';
import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { createInMemoryBlobStorage } from '@kindgi/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresBlobRows, createPostgresPool, markPending, migrate, type PostgresPool } from '../src/index.js';

// listByPrefix over PostgreSQL's scans must give the pages and continuation tokens of every other binding:
// compared here, page by page, with the in-memory binding over the same keys, including prefixes large enough
// that skipping them leaves the rows read so far.
let pg: TestPostgres;
let pool: PostgresPool;

beforeAll(async () => {
  pg = await startPostgres();
  pool = createPostgresPool({ url: await pg.createDatabase('blobs_listing') });
  const migrated = await migrate(pool);
  if (migrated.kind === 'err') throw new Error(migrated.error.message);
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await pg?.stop();
});

function keys(): string[] {
  const out: string[] = [];
  for (let i = 0; i < 40; i++) out.push(`big/${String(i).padStart(3, '0')}`);
  for (let i = 0; i < 6; i++) out.push(`a/${i}/x`, `a/${i}/y`, `a${i}`, `b/${i}`);
  out.push('z', 'big', 'big/', 'big//double', '\u{1F600}/emoji', '\uFFFF/top', 'é/accent');
  return out;
}

async function store(tenantId: string, key: string): Promise<void> {
  const objectKey = `test/${randomUUID()}`;
  await markPending(pool, objectKey, 60_000);
  const meta: BlobMeta = {
    blobId: randomUUID(),
    tenantId,
    bucket: 'b',
    key,
    name: key,
    contentType: 'text/plain',
    size: 0,
    hash: '',
    etag: '',
    tags: {},
    metadata: {},
    createdAt: new Date().toISOString(),
  };
  const written = { ref: objectKey, size: 0, sha256: '', md5: '' };
  expect(await createPostgresBlobRows(pool).commit(meta, written, {})).toEqual({ refused: false });
}

it('pages and tokens equal the in-memory binding for every prefix, delimiter and page size', async () => {
  const memory = createInMemoryBlobStorage();
  for (const key of keys()) {
    await store('t', key);
    const put = await memory.putByKey('t', 'b', key, { name: key, contentType: 'text/plain', bytes: new Uint8Array() });
    expect(put.kind).toBe('ok');
  }
  const inputs: ListByPrefixInput[] = [];
  for (const prefix of [undefined, 'a', 'a/', 'big/', 'big', 'zz'])
    for (const delimiter of [undefined, '/'])
      for (const maxKeys of [1, 2, 3, 7, 1000]) inputs.push({ prefix, delimiter, maxKeys, startAfter: undefined });
  inputs.push({ startAfter: 'big/010', maxKeys: 4 }, { startAfter: 'a', delimiter: '/', maxKeys: 2 });
  for (const input of inputs) {
    let token: string | undefined;
    for (let page = 0; page < 200; page++) {
      const request = token === undefined ? input : { ...input, continuationToken: token };
      const rows = createPostgresBlobRows(pool);
      const fromPg = await listByPrefixOverScan((from, limit) => rows.scan('t', 'b', from, limit), request);
      const fromMemory = await memory.listByPrefix('t', 'b', request);
      if (fromPg.kind === 'err' || fromMemory.kind === 'err') throw new Error('listing failed');
      expect(fromPg.value.contents.map((meta) => meta.key)).toEqual(fromMemory.value.contents.map((meta) => meta.key));
      expect(fromPg.value.commonPrefixes).toEqual(fromMemory.value.commonPrefixes);
      expect(fromPg.value.isTruncated).toBe(fromMemory.value.isTruncated);
      expect(fromPg.value.nextContinuationToken).toBe(fromMemory.value.nextContinuationToken);
      token = fromPg.value.nextContinuationToken;
      if (token === undefined) break;
    }
  }
}, 120_000);
