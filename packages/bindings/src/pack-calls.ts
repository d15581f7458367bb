import type { CallContext, PackResponse, PackTransportError, Result, RunTrace, ToolRef } from '@kindgi/protocol';

export interface CallOptions {
  /** The call's deadline; the pack answers `deadline-exceeded` after it. */
  deadlineMs?: number;
  /** Aborting it cancels the call (the pack's `ctx.abortSignal` fires). */
  signal?: AbortSignal;
  /** Forwarded as `traceparent`. */
  traceparent?: string;
}

/** Runs one tool call in a pack: a v2 message, or why no message came back. */
export type RunHandlerBinding = (
  call: { tool: ToolRef; input: unknown; ctx: CallContext } & CallOptions,
) => Promise<Result<PackResponse, PackTransportError>>;

/** Runs one guardrail check in a pack. */
export type RunCheckBinding = (
  call: { check: { id: string }; config: Record<string, unknown>; trace: RunTrace } & CallOptions,
) => Promise<Result<PackResponse, PackTransportError>>;
