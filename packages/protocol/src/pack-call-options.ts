/**
 * Options shared by every call into a pack (a tool call, a guardrail check): the bindings' `RunHandlerBinding`
 * and `RunCheckBinding` take them, and the pack service client sends them.
 */
export interface PackCallOptions {
  /** The call's deadline, sent as `kindgi-timeout-ms`: the pack answers `deadline-exceeded` after it. */
  deadlineMs?: number;
  /** Aborting it cancels the call: the HTTP request closes and the pack's `ctx.abortSignal` fires (`cancelled`). */
  signal?: AbortSignal;
  /** Forwarded as `traceparent`. */
  traceparent?: string;
}
