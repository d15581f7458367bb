import { type ApiLogger, type RunEvent, type RunStore, TERMINAL_EVENT_KINDS } from '@kindgi/bindings';
import { ApiError } from '../errors/api-error.js';
import { must } from '../errors/run-errors.js';
import type { RunBodies } from '../responses/run-bodies.js';

/** The event kinds that end a run's stream. */
const TERMINAL_EVENTS: ReadonlySet<string> = new Set(Object.values(TERMINAL_EVENT_KINDS));

/** One journal event as every stream of the run sends it: its SSE frame, made once. */
export interface FeedEvent {
  sequence: number;
  terminal: boolean;
  /** The frame's bytes in order (the terminal one embeds the run's shared JSON text, uncopied). */
  frame: readonly Uint8Array[];
}

/** What a feed reads with. */
export interface RunFeedDeps {
  runStore: RunStore;
  bodies: RunBodies;
  logger: ApiLogger;
  /** How often the journal is re-read when no change was announced. */
  pollMs: number;
}

/**
 * A run's journal read once for every stream that follows it in this process: one store watch, one read per
 * change (or per `pollMs` without one), and each event's frame built once. The events stay in memory while
 * the feed is open (a run journals a handful); reading stops after the terminal event or a store failure.
 */
export class RunFeed {
  /** Every event read so far, in sequence order. */
  readonly events: FeedEvent[] = [];
  /** Set when the store failed: the streams end with it and the next stream opens a new feed. */
  failure: ApiError | undefined;
  /** Streams attached (maintained by `RunFeeds`). */
  refs = 0;
  readonly tenantId: string;
  readonly runId: string;
  readonly #deps: RunFeedDeps;
  readonly #waiters = new Set<() => void>();
  #unwatch: (() => void) | undefined;
  #dirty = true;
  #wake: (() => void) | undefined;
  #closed = false;

  constructor(deps: RunFeedDeps, tenantId: string, runId: string) {
    this.#deps = deps;
    this.tenantId = tenantId;
    this.runId = runId;
    this.#unwatch = deps.runStore.watch(tenantId, runId, () => {
      this.#dirty = true;
      this.#wake?.();
    });
    void this.#follow();
  }

  /** True once the terminal event was read: nothing follows it. */
  get ended(): boolean {
    return this.events.at(-1)?.terminal === true;
  }

  /** Resolves at the feed's next change (an event, its end, a failure), after `ms`, or when `signal` aborts. */
  nextChange(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.#waiters.add(done);
    });
  }

  /** Stops reading (the last stream left). */
  close(): void {
    this.#closed = true;
    this.#stopWatching();
    this.#wake?.();
  }

  async #follow(): Promise<void> {
    const { runStore, pollMs } = this.#deps;
    let after = 0;
    try {
      while (!this.#closed && !this.ended) {
        this.#dirty = false;
        const read = must(await runStore.listEvents(this.tenantId, this.runId, after));
        for (const event of read) {
          this.events.push(await this.#framed(event));
          after = event.sequence;
          if (this.ended) break;
        }
        if (read.length > 0) this.#notify();
        if (!this.#dirty && !this.ended && !this.#closed) await this.#sleep(pollMs);
      }
    } catch (thrown) {
      this.failure = thrown instanceof ApiError ? thrown : new ApiError('internal-server-error', 'The stream failed.');
      if (!(thrown instanceof ApiError)) {
        this.#deps.logger.error('run stream failed', { runId: this.runId, error: String(thrown) });
      }
    } finally {
      this.#stopWatching();
      this.#notify();
    }
  }

  async #framed(event: RunEvent): Promise<FeedEvent> {
    const terminal = TERMINAL_EVENTS.has(event.kind);
    const head = Buffer.from(`event: ${event.kind}\ndata: `);
    const tail = Buffer.from(`\nid: ${this.runId}:${event.sequence}\n\n`);
    // The journal keeps a terminal record without its output (stored once, on the run): send the run itself.
    const data = terminal ? await this.#deps.bodies.get(this.tenantId, this.runId) : null;
    const body = data ?? Buffer.from(JSON.stringify(event.data ?? null));
    return { sequence: event.sequence, terminal, frame: [head, body, tail] };
  }

  async #sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = undefined;
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  #stopWatching(): void {
    this.#unwatch?.();
    this.#unwatch = undefined;
  }
}
