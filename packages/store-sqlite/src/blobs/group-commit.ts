import type { KindgiDatabase } from '../database.js';

interface Pending<T, R> {
  item: T;
  resolve(result: R): void;
  reject(cause: unknown): void;
}

/**
 * Commits concurrent writes together: every write submitted in the same turn of the event loop is applied in
 * one transaction, so many small objects share one WAL fsync instead of paying one each. Each write is still
 * durable before its promise resolves. When the shared transaction fails, each write is retried alone, so one
 * bad write fails only itself.
 */
export class GroupCommit<T, R> {
  private queue: Pending<T, R>[] = [];
  private scheduled = false;

  constructor(
    private readonly db: KindgiDatabase,
    private readonly apply: (item: T) => R,
  ) {}

  /** Queues a write; resolves once its transaction committed (or rejects with why it could not). */
  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    let results: R[];
    try {
      results = this.db.transaction(() => batch.map((pending) => this.apply(pending.item))).immediate();
    } catch {
      for (const pending of batch) this.alone(pending);
      return;
    }
    for (const [i, pending] of batch.entries()) pending.resolve(results[i]!);
  }

  private alone(pending: Pending<T, R>): void {
    try {
      pending.resolve(this.db.transaction(() => this.apply(pending.item)).immediate());
    } catch (cause) {
      pending.reject(cause);
    }
  }
}
