import { createHash } from 'node:crypto';
import { hashWorkerPool, SharedSlabs, type WorkerHash } from './hash-workers.js';

/** Bodies up to this size are hashed on the event loop: a worker round trip costs more than hashing them. */
export const SMALL_BODY_BYTES = 1024 * 1024;
/**
 * Larger bodies go to storage and to the hash workers in batches of this size: large enough that messages
 * between threads are few, small enough that each write's copy stays in the CPU's cache (2 MiB writes cost
 * several times the CPU per byte on the benchmark machine).
 */
export const BATCH_BYTES = 512 * 1024;
/** Batches of one body in flight at once (being written or hashed): bounds what one body holds. */
const MAX_BATCHES_PER_BODY = 4;

let slabs: SharedSlabs | undefined;

/** The two digests every body gets, lowercase hex. */
export interface Digests {
  sha256: string;
  md5: string;
}

/** Bytes ready for storage; `written()` once the storage is done with them (they are lent, not given). */
export interface Batch {
  bytes: Uint8Array;
  written(): void;
}

const owned = (bytes: Uint8Array): Batch => ({ bytes, written: () => undefined });

/**
 * Hashes a body's bytes once per algorithm and hands them on in storage-sized batches. A small body is held
 * (its chunks, not copies) and comes out whole at `finish`, hashed here. A body past `SMALL_BODY_BYTES` is
 * copied into `BATCH_BYTES` shared-memory batches, each lent to the storage and at the same time hashed on
 * worker threads (see `HashWorkerPool`); a batch is reused once the workers and the storage are done with it.
 */
export class BodyHasher {
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  private hashes: WorkerHash[] | undefined;
  private slab: Buffer | undefined;
  private filled = 0;
  private inFlight = 0;
  private roomWaiter: (() => void) | undefined;
  private readonly hashing: Promise<void>[] = [];
  private failure: { cause: unknown } | undefined;

  /**
   * Takes the next chunk, yielding each batch it completes; the caller hands each to storage before taking the
   * next, so a body waiting for room always has its batches moving. Throws when hashing failed (a worker
   * crashed), so the body stops early.
   */
  async *take(chunk: Uint8Array): AsyncGenerator<Batch> {
    if (this.hashes === undefined) {
      this.held.push(chunk);
      this.heldBytes += chunk.byteLength;
      if (this.heldBytes <= SMALL_BODY_BYTES) return;
      const pool = hashWorkerPool();
      this.hashes = pool.size >= 2 ? [pool.open(['sha256']), pool.open(['md5'])] : [pool.open(['sha256', 'md5'])];
      const held = this.held;
      this.held = [];
      for (const piece of held) yield* this.copy(piece);
      return;
    }
    yield* this.copy(chunk);
  }

  /** The body ended: the last batch (or the whole small body), if any bytes are left. */
  finish(): Batch[] {
    if (this.hashes === undefined) {
      if (this.held.length <= 1) return this.held.map(owned);
      return [owned(Buffer.concat(this.held, this.heldBytes))];
    }
    if (this.filled === 0) return [];
    return [this.dispatch()];
  }

  /** The digests, once every byte handed on was hashed. Rejects when hashing failed. */
  async digests(): Promise<Digests> {
    if (this.hashes === undefined) {
      const sha256 = createHash('sha256');
      const md5 = createHash('md5');
      for (const piece of this.held) {
        sha256.update(piece);
        md5.update(piece);
      }
      return { sha256: sha256.digest('hex'), md5: md5.digest('hex') };
    }
    await Promise.all(this.hashing);
    if (this.failure) throw this.failure.cause;
    const [sha256, md5] = (await Promise.all(this.hashes.map((hash) => hash.digest()))).flat();
    return { sha256: sha256!, md5: md5! };
  }

  /** The body failed: the workers forget it. Batches still lent come back as storage and workers settle them. */
  drop(): void {
    for (const hash of this.hashes ?? []) hash.drop();
    this.held = [];
    if (this.slab !== undefined) slabs?.release(this.slab);
    this.slab = undefined;
  }

  private async *copy(chunk: Uint8Array): AsyncGenerator<Batch> {
    for (let at = 0; at < chunk.byteLength; ) {
      if (this.slab === undefined) {
        while (this.inFlight >= MAX_BATCHES_PER_BODY && this.failure === undefined) {
          await new Promise<void>((resolve) => {
            this.roomWaiter = resolve;
          });
        }
        if (this.failure) throw this.failure.cause;
        slabs ??= new SharedSlabs(BATCH_BYTES, hashWorkerPool().size > 0);
        this.slab = slabs.acquire();
      }
      const take = Math.min(chunk.byteLength - at, BATCH_BYTES - this.filled);
      this.slab.set(chunk.subarray(at, at + take), this.filled);
      this.filled += take;
      at += take;
      if (this.filled === BATCH_BYTES) yield this.dispatch();
    }
  }

  private wake(): void {
    const waiter = this.roomWaiter;
    this.roomWaiter = undefined;
    waiter?.();
  }

  /** Lends the filled slab to the storage and both workers; it goes back to the pool once all three are done. */
  private dispatch(): Batch {
    const slab = this.slab!;
    const bytes = slab.subarray(0, this.filled);
    this.slab = undefined;
    this.filled = 0;
    this.inFlight++;
    let written!: () => void;
    const stored = new Promise<void>((resolve) => {
      written = resolve;
    });
    const updates = this.hashes!.map((hash) => hash.update(bytes));
    this.hashing.push(
      Promise.all(updates).then(
        () => undefined,
        (cause: unknown) => {
          this.failure ??= { cause };
          this.wake();
        },
      ),
    );
    // A failed worker settles its update at once; the slab still waits for the other worker and the storage.
    void Promise.allSettled([...updates, stored]).then(() => {
      slabs!.release(slab);
      this.inFlight--;
      this.wake();
    });
    return { bytes, written };
  }
}
