import pg from 'pg';

/** How a pool reaches PostgreSQL and how long it waits before a request fails instead of hanging. */
export interface PostgresPoolOptions {
  /** A `postgres://user:password@host:port/database` URL. */
  url: string;
  /** Connections kept at most (default 10). */
  max?: number;
  /** Waiting for a connection longer than this fails the query (default 5,000 ms). */
  connectTimeoutMs?: number;
  /** A statement running longer than this is cancelled by the server (default 30,000 ms). */
  statementTimeoutMs?: number;
  /** Reported by `pg_stat_activity`. */
  applicationName?: string;
  /** Told about connection errors of idle clients (PostgreSQL restarted, network cut); they never throw. */
  onError?: (error: Error) => void;
}

/** The `pg` pool type every store of this package takes. */
export type PostgresPool = pg.Pool;

/**
 * Creates a `pg` pool whose failures stay requests' failures: an idle connection dropped by a PostgreSQL
 * restart is reported to `onError` (an unhandled pool `'error'` would end the process), a connection
 * attempt and a statement are bounded, and the pool reconnects on the next query once the server is back.
 */
export function createPostgresPool(options: PostgresPoolOptions): PostgresPool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    query_timeout: (options.statementTimeoutMs ?? 30_000) + 5_000,
    idleTimeoutMillis: 30_000,
    application_name: options.applicationName ?? 'kindgi',
    keepAlive: true,
  });
  const onError = options.onError ?? (() => {});
  pool.on('error', (error) => onError(error));
  return pool;
}

/** The URL with its password replaced by `***`, for logs and error messages. */
export function maskDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    // Not a URL: hide everything between `//` and `@`, where a password would be.
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}

/** `message` with the URL's password (as given or decoded) replaced by `***`: driver messages may quote it. */
export function hideDatabasePassword(message: string, url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    // Not a URL: there is no password to find.
  }
  return password === '' ? message : message.split(password).join('***');
}
