import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { describeSecretStoreContract } from '@kindgi/testing/contract-suite';
import { afterAll, beforeAll } from 'vitest';
import { createPostgresPool, createPostgresSecretRows, migrate } from '../src/index.js';

let server: TestPostgres;
let count = 0;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

describeSecretStoreContract('postgres', async () => {
  const name = `secrets_${++count}`;
  const pool = createPostgresPool({ url: await server.createDatabase(name) });
  const migrated = await migrate(pool);
  if (migrated.kind === 'err') throw new Error(migrated.error.message);
  return { rows: createPostgresSecretRows(pool), dump: async () => server.dump(name), close: () => pool.end() };
});
