import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresPool, maskDatabaseUrl, migrate } from '../src/index.js';

let server: TestPostgres;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

describe('migrate', () => {
  it('applies every migration once when many pools migrate at the same time', async () => {
    const url = await server.createDatabase('migrate_race');
    const pools = Array.from({ length: 5 }, () => createPostgresPool({ url, max: 2 }));
    try {
      const results = await Promise.all(pools.map((pool) => migrate(pool)));
      const applied = results.map((r) => (r.kind === 'ok' ? r.value : [r.error.message]));
      expect(applied.flat().filter((name) => name.startsWith('001_'))).toEqual(['001_idempotency_runs.sql']);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const rows = await client.query('SELECT version FROM schema_migrations ORDER BY version');
      await client.end();
      expect(rows.rows[0]).toEqual({ version: 1 });
      expect(await migrate(pools[0] as pg.Pool)).toEqual({ kind: 'ok', value: [] });
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('masks the password of a database URL', () => {
    expect(maskDatabaseUrl('postgres://kindgi:s3cret@db:5432/kindgi')).toBe('postgres://kindgi:***@db:5432/kindgi');
    expect(maskDatabaseUrl('not a url://u:s3cret@x')).not.toContain('s3cret');
  });
});
