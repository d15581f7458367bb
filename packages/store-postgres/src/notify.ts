import pg from 'pg';

/** The channels the stores notify on (payloads are small JSON strings). */
export const RUN_EVENTS_CHANNEL = 'kindgi_run_events';
export const RUN_QUEUE_CHANNEL = 'kindgi_run_queue';

/**
 * One LISTEN connection per process, shared by every watcher. It connects on the first subscription and
 * reconnects after a failure (PostgreSQL restarted); after a reconnect every listener is called once, since
 * notifications sent meanwhile are lost and watchers must re-read.
 */
export class PostgresListener {
  readonly #listeners = new Map<string, Set<(payload: string) => void>>();
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly url: string,
    private readonly onError: (error: Error) => void = () => {},
    private readonly retryMs = 1_000,
  ) {}

  /** Calls `listener` with each payload sent on `channel`, and with `''` after a reconnect. */
  subscribe(channel: string, listener: (payload: string) => void): () => void {
    const set = this.#listeners.get(channel) ?? new Set();
    this.#listeners.set(channel, set);
    set.add(listener);
    this.#ensure();
    return () => {
      set.delete(listener);
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  #ensure(): void {
    if (this.#closed || this.#client !== undefined || this.#connecting !== undefined) return;
    this.#connecting = this.#connect().finally(() => {
      this.#connecting = undefined;
    });
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5_000, keepAlive: true });
    const lost = (error?: Error) => {
      if (error) this.onError(error);
      if (this.#client === client) this.#client = undefined;
      client.end().catch(() => undefined);
      this.#scheduleRetry();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      for (const listener of this.#listeners.get(message.channel) ?? []) listener(message.payload ?? '');
    });
    try {
      await client.connect();
      for (const channel of [RUN_EVENTS_CHANNEL, RUN_QUEUE_CHANNEL]) await client.query(`LISTEN ${channel}`);
      if (this.#closed) {
        await client.end();
        return;
      }
      const reconnected = this.#client === undefined;
      this.#client = client;
      // Whatever was sent while no connection listened is lost: every watcher re-reads.
      if (reconnected) for (const set of this.#listeners.values()) for (const listener of set) listener('');
    } catch (cause) {
      lost(cause instanceof Error ? cause : new Error(String(cause)));
    }
  }

  #scheduleRetry(): void {
    if (this.#closed || this.#retry !== undefined) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#ensure();
    }, this.retryMs);
    this.#retry.unref();
  }
}
