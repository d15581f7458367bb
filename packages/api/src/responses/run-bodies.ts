import { type RunRecord, type RunStore, TERMINAL_RUN_STATUSES } from '@kindgi/bindings';
import { LRUCache } from 'lru-cache';
import { must } from '../errors/run-errors.js';
import { jsonBytesOf } from './sliced-body.js';

/** Bytes of finished runs kept for the next request: a few big outputs. */
export const DEFAULT_RUN_BODY_CACHE_BYTES = 64 * 1024 * 1024;

function keyOf(tenantId: string, runId: string): string {
  return `${tenantId}\u0000${runId}`;
}

/**
 * The JSON text of runs as `GET /v1/runs/{runId}` answers them. A finished run never changes, so its text is
 * made once and shared by every response and stream that sends it: kept in an LRU bounded by bytes, and,
 * once evicted, found again for as long as a response still streams it. Concurrent reads of one run share
 * one store read.
 */
export class RunBodies {
  readonly #runStore: RunStore;
  readonly #recent: LRUCache<string, Uint8Array>;
  readonly #live = new Map<string, WeakRef<Uint8Array>>();
  readonly #forget = new FinalizationRegistry<string>((key) => {
    if (this.#live.get(key)?.deref() === undefined) this.#live.delete(key);
  });
  readonly #loading = new Map<string, Promise<Uint8Array | null>>();

  constructor(runStore: RunStore, maxBytes = DEFAULT_RUN_BODY_CACHE_BYTES) {
    this.#runStore = runStore;
    // A body over the bound is not kept here; #live still shares it while it streams.
    this.#recent = new LRUCache({ maxSize: maxBytes, sizeCalculation: (bytes) => Math.max(1, bytes.byteLength) });
  }

  /** The tenant's run as JSON bytes, or null when it has none by that id (503 when the store fails). */
  get(tenantId: string, runId: string): Promise<Uint8Array | null> {
    const key = keyOf(tenantId, runId);
    const known = this.#find(key);
    if (known !== undefined) return Promise.resolve(known);
    let loading = this.#loading.get(key);
    if (loading === undefined) {
      loading = this.#load(tenantId, runId).finally(() => this.#loading.delete(key));
      this.#loading.set(key, loading);
    }
    return loading;
  }

  /** `run` as JSON bytes: the shared copy when it is finished, a fresh one otherwise. */
  of(run: RunRecord): Uint8Array {
    if (!TERMINAL_RUN_STATUSES.has(run.status)) return jsonBytesOf(run);
    const key = keyOf(run.tenantId, run.runId);
    const known = this.#find(key);
    if (known !== undefined) return known;
    const bytes = jsonBytesOf(run);
    this.#recent.set(key, bytes);
    this.#live.set(key, new WeakRef(bytes));
    this.#forget.register(bytes, key);
    return bytes;
  }

  async #load(tenantId: string, runId: string): Promise<Uint8Array | null> {
    const run = must(await this.#runStore.get(tenantId, runId));
    return run === null ? null : this.of(run);
  }

  #find(key: string): Uint8Array | undefined {
    return this.#recent.get(key) ?? this.#live.get(key)?.deref();
  }
}
