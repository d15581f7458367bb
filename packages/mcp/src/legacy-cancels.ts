import { randomUUID } from 'node:crypto';

/** The 2025-11-25 session header: the id is issued at `initialize` and echoed by the client. */
export const SESSION_HEADER = 'mcp-session-id';

// A bound on calls that can be cancelled by notification at once: past it the oldest stop being cancellable
// that way (closing their stream still cancels them).
const MAX_CANCELLABLE = 10_000;

/**
 * Lets a 2025-11-25 `notifications/cancelled`, which arrives on a POST of its own, reach the call it names
 * in this process. Under that revision the call's stream stays open after a cancel, and no server keeps a
 * session: the session id is issued at `initialize` and never stored, so the id only scopes request ids
 * (tenant, session id, request id), keeping one client from cancelling another's call. A cancel aborts the
 * call's request signal, which the SDK treats like a closed stream: the pack call is aborted and nothing is
 * sent after it.
 */
export class LegacyCancels {
  private readonly calls = new Map<string, AbortController>();

  /** A fresh session id for an `initialize` answer. */
  issueSession(): string {
    return randomUUID();
  }

  /**
   * Registers a call; the returned signal fires on its cancel, or when `linked` (the request's own signal: a
   * closed stream) fires. `release` forgets it.
   */
  register(
    tenantId: string,
    session: string,
    requestId: unknown,
    linked?: AbortSignal,
  ): { signal: AbortSignal; release: () => void } {
    const key = keyOf(tenantId, session, requestId);
    const controller = new AbortController();
    this.calls.get(key)?.abort(new Error('superseded by a call with the same request id'));
    this.calls.set(key, controller);
    if (this.calls.size > MAX_CANCELLABLE) {
      const oldest = this.calls.keys().next().value as string;
      this.calls.delete(oldest);
    }
    const onLinkedAbort = () => controller.abort(linked?.reason);
    if (linked?.aborted) onLinkedAbort();
    else linked?.addEventListener('abort', onLinkedAbort, { once: true });
    const release = () => {
      linked?.removeEventListener('abort', onLinkedAbort);
      if (this.calls.get(key) === controller) this.calls.delete(key);
    };
    return { signal: controller.signal, release };
  }

  /** Aborts the call a cancel names, if this process runs it; true when one was found. */
  cancel(tenantId: string, session: string, requestId: unknown): boolean {
    const key = keyOf(tenantId, session, requestId);
    const controller = this.calls.get(key);
    if (controller === undefined) return false;
    this.calls.delete(key);
    controller.abort(new Error('cancelled by notifications/cancelled'));
    return true;
  }

  /** Calls currently cancellable (for tests). */
  get size(): number {
    return this.calls.size;
  }
}

function keyOf(tenantId: string, session: string, requestId: unknown): string {
  return `${tenantId}\u0000${session}\u0000${JSON.stringify(requestId)}`;
}
