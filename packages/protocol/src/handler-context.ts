/** Fields attached to one log line. */
export type LogFields = Record<string, unknown>;

/** The logger a tool gets as `ctx.log`: its lines carry the call's ids. */
export interface ToolLogger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/**
 * What a tool handler receives as `ctx`: the wire `ctx` (without `secrets` as a plain field) plus the
 * call's `abortSignal`. The runtime sets the ids from the run, never from the input: to check an id the
 * input names, compare it with these. `secrets` and `log` are not enumerable, so spreading, printing or
 * serialising a context never shows a secret value. One definition for the SDK's handler type and the
 * runner's context, so what authors are promised is what the runner builds.
 */
export interface ToolContext {
  /** The tenant the call is for; key per-tenant state by it. */
  readonly tenantId: string;
  /** The run (an agent turn or a flow step) the call belongs to. */
  readonly runId: string;
  /** This call, such as the model's tool-call id. */
  readonly requestId?: string;
  readonly projectId?: string | null;
  readonly orgId?: string | null;
  /** Reserved. */
  readonly env?: Record<string, string>;
  /** Reserved. */
  readonly config?: Record<string, unknown>;
  /** Block id → values. */
  readonly settings?: Record<string, Record<string, unknown>>;
  /** Stable across retries of the same step: use it to make a mutating call idempotent. */
  readonly idempotencyKey?: string;
  /** Fires on the call's deadline or when the caller goes away: pass it on to slow I/O. */
  readonly abortSignal: AbortSignal;
  /** The secrets the tool declares in `needsSpec`, for this tenant. Never printed with the context. */
  readonly secrets: Readonly<Record<string, unknown>>;
  readonly log: ToolLogger;
}

/** What a guardrail check receives as its third argument. */
export interface CheckBindings {
  readonly abortSignal: AbortSignal;
}
