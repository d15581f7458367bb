/** Bytes held from a `ByteBudget` until `release()` (idempotent). */
export interface BudgetLease {
  readonly bytes: number;
  release(): void;
}

interface Waiter {
  /** Bytes wanted; `0` waits only for room (less than the whole budget held), taking nothing. */
  bytes: number;
  grant: (granted: boolean) => void;
}

/** A wait that may end early: when `signal` fires or after `waitMs`. */
function boundedWait(waitMs: number, signal: AbortSignal | undefined, onGiveUp: () => void): () => void {
  // setTimeout fires at once for delays past a signed 32-bit millisecond count.
  const timer = setTimeout(onGiveUp, Math.min(waitMs, 2 ** 31 - 1));
  signal?.addEventListener('abort', onGiveUp, { once: true });
  return () => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onGiveUp);
  };
}

/**
 * A process-wide allowance of bytes held in memory at once (upload buffers, replies being read). Waiters are
 * served in arrival order, so a large request is not starved by a stream of small ones; a request larger
 * than the whole budget is granted the whole budget once nothing else holds any of it.
 */
export class ByteBudget {
  private held = 0;
  private readonly queue: Waiter[] = [];

  constructor(readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit <= 0) throw new RangeError(`a byte budget is positive, got ${limit}`);
  }

  /** Bytes held now. */
  get used(): number {
    return this.held;
  }

  /** Requests waiting for room now. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Holds `bytes` (at most the whole budget) once they fit, waiting behind earlier requests for at most
   * `waitMs` or until `signal` fires; `undefined` when they did not fit in time.
   */
  async acquire(bytes: number, waitMs: number, signal?: AbortSignal): Promise<BudgetLease | undefined> {
    const wanted = Math.min(Math.max(0, Math.ceil(bytes)), this.limit);
    if (wanted === 0) return this.lease(0);
    const granted = await this.enqueue(wanted, waitMs, signal);
    return granted ? this.lease(wanted) : undefined;
  }

  /** Waits until less than the whole budget is held and no earlier request waits; false after `waitMs`. */
  waitForRoom(waitMs: number, signal?: AbortSignal): Promise<boolean> {
    return this.enqueue(0, waitMs, signal);
  }

  private fits(waiter: Waiter): boolean {
    return waiter.bytes === 0 ? this.held < this.limit : this.held + waiter.bytes <= this.limit;
  }

  private enqueue(bytes: number, waitMs: number, signal: AbortSignal | undefined): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    const probe: Waiter = { bytes, grant: () => undefined };
    if (this.queue.length === 0 && this.fits(probe)) {
      this.held += bytes;
      return Promise.resolve(true);
    }
    if (waitMs <= 0) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        bytes,
        grant: (granted) => {
          stopWaiting();
          resolve(granted);
        },
      };
      const stopWaiting = boundedWait(waitMs, signal, () => {
        const at = this.queue.indexOf(waiter);
        if (at < 0) return;
        this.queue.splice(at, 1);
        waiter.grant(false);
        // The head leaving may let the ones behind it in.
        this.serve();
      });
      this.queue.push(waiter);
    });
  }

  private lease(bytes: number): BudgetLease {
    let released = false;
    return {
      bytes,
      release: () => {
        if (released) return;
        released = true;
        this.held -= bytes;
        this.serve();
      },
    };
  }

  private serve(): void {
    for (let head = this.queue[0]; head !== undefined && this.fits(head); head = this.queue[0]) {
      this.queue.shift();
      this.held += head.bytes;
      head.grant(true);
    }
  }
}
