import { RunFeed, type RunFeedDeps } from './run-feed.js';

/**
 * The open feeds of this process, one per (tenant, run): the first stream of a run opens its feed, the
 * others share it, and the last one to leave closes it. A feed that failed is replaced for the next stream.
 */
export class RunFeeds {
  readonly #deps: RunFeedDeps;
  readonly #open = new Map<string, RunFeed>();

  constructor(deps: RunFeedDeps) {
    this.#deps = deps;
  }

  /** The run's feed, opened if needed; pair every call with one `release`. */
  acquire(tenantId: string, runId: string): RunFeed {
    const key = `${tenantId}\u0000${runId}`;
    let feed = this.#open.get(key);
    if (feed === undefined || feed.failure !== undefined) {
      feed = new RunFeed(this.#deps, tenantId, runId);
      this.#open.set(key, feed);
    }
    feed.refs++;
    return feed;
  }

  /** One stream of `feed` ended; the last one closes it. */
  release(feed: RunFeed): void {
    feed.refs--;
    if (feed.refs > 0) return;
    feed.close();
    const key = `${feed.tenantId}\u0000${feed.runId}`;
    if (this.#open.get(key) === feed) this.#open.delete(key);
  }

  /** How many feeds are open (for tests and metrics). */
  get size(): number {
    return this.#open.size;
  }
}
