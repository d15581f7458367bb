import { describeRunStoreContract } from '@kindgi/testing/contract-suite';
import { startPostgres, type TestPostgres } from '@kindgi/testing/postgres';
import { afterAll, beforeAll } from 'vitest';
import { openPostgresStores } from '../src/index.js';

let server: TestPostgres;
let count = 0;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

describeRunStoreContract('postgres', async () => {
  const url = await server.createDatabase(`runs_${++count}`);
  const opened = [await openPostgresStores({ url }), await openPostgresStores({ url })];
  const [a, b] = opened.map((result) => {
    if (result.kind === 'err') throw new Error(result.error.message);
    return result.value;
  });
  if (a === undefined || b === undefined) throw new Error('unreachable');
  return {
    store: a.runStore,
    peer: b.runStore,
    close: async () => {
      await a.close();
      await b.close();
    },
  };
});
