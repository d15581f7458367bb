/**
 * A call's abort signal that is only made when something reads it. `new AbortController()` costs more
 * than the rest of a small call's bookkeeping together, and most handlers never look at their signal.
 * Aborting before the first read is remembered: the signal made later is already aborted, with the reason.
 */
export class DeferredAbortSignal {
  #controller: AbortController | undefined;
  #signal: AbortSignal | undefined;
  #aborted = false;
  #reason: unknown;

  /** The signal, made on first read. */
  get signal(): AbortSignal {
    if (this.#signal === undefined) {
      if (this.#aborted) {
        this.#signal = AbortSignal.abort(this.#reason);
      } else {
        this.#controller = new AbortController();
        this.#signal = this.#controller.signal;
      }
    }
    return this.#signal;
  }

  /** True once `abort` was called. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** True once the signal was made (something read it). */
  get materialised(): boolean {
    return this.#signal !== undefined;
  }

  /** Aborts the signal (now, or when it is made); later calls do nothing, like `AbortController.abort`. */
  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}
