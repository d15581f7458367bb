import { startMotoServer } from '@kindgi/test-services/moto';
import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { describeBlobStorageContract } from '@kindgi/testing/contract-suite';
import { afterAll, beforeAll } from 'vitest';
import { freshPool, motoBackend, openStorage, type TestBackend } from './backends.js';

let pg: TestPostgres;
let backend: TestBackend;

beforeAll(async () => {
  [pg, backend] = await Promise.all([startPostgres(), startMotoServer().then(motoBackend)]);
}, 120_000);

afterAll(async () => {
  await Promise.all([backend?.stop(), pg?.stop()]);
});

describeBlobStorageContract('S3 (moto) + PostgreSQL (blob-s3)', async () => {
  const pool = await freshPool(pg);
  const storage = await openStorage({ pool, backend: await backend.freshBackend() });
  return {
    storage,
    close: async () => {
      await storage.close();
      await pool.end();
    },
  };
});
