import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { describeBlobStorageContract } from '@kindgi/testing/contract-suite';
import { afterAll, beforeAll } from 'vitest';
import { freshPool, kindgiBackend, openStorage } from './backends.js';

// A second kindgi-server as the object store: it checks every SigV4 signature and Content-MD5 moto ignores.
// Here no object is kept inline, so every body of the contract goes through the store (the moto run keeps
// small ones in PostgreSQL, as a server does by default).
let pg: TestPostgres;
let backend: Awaited<ReturnType<typeof kindgiBackend>>;

beforeAll(async () => {
  [pg, backend] = await Promise.all([startPostgres(), kindgiBackend()]);
}, 120_000);

afterAll(async () => {
  await Promise.all([backend?.stop(), pg?.stop()]);
});

describeBlobStorageContract('S3 (kindgi-server) + PostgreSQL (blob-s3)', async () => {
  const pool = await freshPool(pg);
  const storage = await openStorage({
    pool,
    backend: await backend.freshBackend(),
    prefix: backend.prefix(),
    inlineMaxBytes: 0,
  });
  return {
    storage,
    close: async () => {
      await storage.close();
      await pool.end();
    },
  };
});
