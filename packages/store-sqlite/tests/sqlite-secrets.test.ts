import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeSecretStoreContract } from '@kindgi/testing/contract-suite';
import { afterEach } from 'vitest';
import { createSqliteSecretRows, openKindgiDatabase } from '../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describeSecretStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kindgi-secrets-'));
  dirs.push(dir);
  const db = openKindgiDatabase(dir);
  return {
    rows: createSqliteSecretRows(db),
    // The database file and its write-ahead log, as they are on disk.
    dump: async () => Buffer.concat(readdirSync(dir).map((name) => readFileSync(join(dir, name)))),
    close: () => {
      db.close();
    },
  };
});
