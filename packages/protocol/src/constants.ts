/** The pack protocol version every message carries as `v`. */
export const PACK_PROTOCOL_VERSION = 2 as const;

/** The `v` of a pack's `index.json` envelope. */
export const INDEX_ENVELOPE_VERSION = 1 as const;

/** HTTP headers of the pack service transport (lowercase, as Node exposes them). */
export const PACK_HEADERS = {
  /** The shared secret; `Authorization` is left alone because platforms put their own identity there. */
  token: 'kindgi-pack-token',
  /** The caller's deadline in milliseconds; a positive integer, else the default. */
  timeoutMs: 'kindgi-timeout-ms',
  /** The caller's run id: a `check-invoke` carries no ctx, so its `call` record takes `runId` from here. */
  runId: 'kindgi-run-id',
  /** The caller's request id, for the `call` record of a `check-invoke` (an invoke's is in its ctx). */
  requestId: 'kindgi-request-id',
  /** On every invoke reply: milliseconds since the call was admitted. */
  durationMs: 'kindgi-duration-ms',
  /** On every invoke reply: the index's `artifactVersion`. */
  artifactVersion: 'kindgi-artifact-version',
  traceparent: 'traceparent',
} as const;

/**
 * The deadline a call gets when its caller names none: the one default of every path to a pack (REST
 * invoke, runs, guardrail checks, the supervisor's front, the pack service itself, remote packs).
 */
export const DEFAULT_CALL_TIMEOUT_MS = 120_000;

/**
 * How long past a call's deadline a caller still waits for a pack that went silent. A pack service answers
 * `deadline-exceeded` itself at the deadline; this covers that reply's way back on a loaded machine. Past
 * it the caller gives up with `deadline-exceeded`: the call was delivered, so it may have run.
 */
export const SILENCE_GRACE_MS = 5_000;

/** The largest request body the pack service reads (10 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * The largest reply body a pack service sends and the protocol client reads (10 MiB, like the request
 * limit): a bigger output is answered `output-too-large`, and a client stops reading there.
 */
export const DEFAULT_MAX_OUTPUT_BYTES = DEFAULT_MAX_BODY_BYTES;

/**
 * The ids of the runtime's built-in guardrail checks, evaluated by the runtime itself over the turn's trace.
 * A pack may name one as its guardrail's `check`; it may not ship its own check under one.
 */
export const RESERVED_CHECK_IDS = Object.freeze([
  'must-cite',
  'never-call-tool',
  'max-tool-calls',
  'output-matches',
  'tool-order',
  'required-substring',
  'forbidden-substring',
] as const);
