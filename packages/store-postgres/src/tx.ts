import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool } from './pool.js';

/** The database clock in epoch milliseconds: every server compares leases and expiries against one clock. */
export const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/**
 * Runs `work` in one transaction on a pooled connection: COMMIT when it resolves, ROLLBACK when it throws
 * (the error is rethrown). A connection that failed mid-way is discarded rather than returned to the pool.
 */
export async function inTransaction<T>(pool: PostgresPool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A checked-out client has no listener of the pool's: a connection the server drops between two queries
  // would emit an unhandled 'error' and end the process. The failure surfaces as the next query's instead.
  const onError = (error: Error) => {
    broken = error;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const value = await work(client);
    await client.query('COMMIT');
    return value;
  } catch (cause) {
    await client.query('ROLLBACK').catch((rollback: unknown) => {
      broken = rollback instanceof Error ? rollback : new Error(String(rollback));
    });
    throw cause;
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}

const statements = new Map<string, { name: string; text: string }>();

/**
 * A named (server-side prepared) form of `text`: PostgreSQL parses and plans it once per connection instead
 * of on every call. The name is a hash of the text, so one text always maps to one statement.
 */
export function prepared(text: string): { name: string; text: string } {
  let statement = statements.get(text);
  if (statement === undefined) {
    statement = { name: `kindgi_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text };
    statements.set(text, statement);
  }
  return statement;
}

/** Runs `text` as a named statement (see {@link prepared}) on a pool or a checked-out client. */
export function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(
  queryable: PostgresPool | pg.PoolClient,
  text: string,
  values: unknown[] = [],
): Promise<pg.QueryResult<R>> {
  return queryable.query<R>({ ...prepared(text), values });
}
