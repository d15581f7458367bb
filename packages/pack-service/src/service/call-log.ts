import type { IncomingHttpHeaders } from 'node:http';
import { PACK_HEADERS, type PackRequest } from '@kindgi/protocol';
import type { LogFields, PackLog, RecordShape } from '../log/log.js';
import type { PackMetrics } from './metrics.js';
import type { ToolLogger } from './runners.js';
import { endCallSpan } from './spans.js';
import type { CallTrace } from './trace.js';

/** What the call records need from the service. */
export interface CallLogDeps {
  log: PackLog;
  packId: string;
  artifactVersion: string;
  /** Counts each call's end, when metrics are on. */
  metrics: PackMetrics | undefined;
  /** A span per call (`runHandler` / `runCheck`) under the caller's `traceparent`. */
  tracing: boolean;
}

/** Whether a call ran a tool or a check. */
export type Target = 'tool' | 'check';

/** The log fields naming a call's subject: `toolId` or `checkId`. */
export type Subject = { toolId: string } | { checkId: string };

const CALL_ID_FIELDS = ['tenantId', 'projectId', 'orgId', 'runId', 'requestId'] as const;

/** Where a call's ids come from: an invoke's wire ctx, or a check's `kindgi-run-id` / `kindgi-request-id`. */
export type CallIds = Readonly<Record<string, unknown>>;

/** The ids of a call: an invoke's ctx as parsed; a check-invoke has no ctx, so its transport headers. */
export function callIdsOf(request: PackRequest, headers: IncomingHttpHeaders): CallIds {
  if (request.kind === 'invoke') return request.ctx;
  return { runId: headers[PACK_HEADERS.runId], requestId: headers[PACK_HEADERS.requestId] };
}

/** Adds the caller's ids (`tenantId`, `runId`, …) that are non-empty strings to `fields`. */
function addCallIds(fields: LogFields, ids: CallIds): LogFields {
  for (const name of CALL_ID_FIELDS) {
    const value = ids[name];
    if (typeof value === 'string' && value !== '') fields[name] = value;
  }
  return fields;
}

/**
 * `ctx.log` for one call. Its child logger (with the call's ids) is built on first use: most handlers
 * never log, and every call would pay for it otherwise. One object per call, no closures.
 */
export class LazyToolLog implements ToolLogger {
  #child: PackLog | undefined;
  readonly #log: PackLog;
  readonly #ids: CallIds;
  readonly #toolId: string;
  readonly #trace: CallTrace;

  constructor(log: PackLog, ids: CallIds, toolId: string, trace: CallTrace) {
    this.#log = log;
    this.#ids = ids;
    this.#toolId = toolId;
    this.#trace = trace;
  }

  #get(): PackLog {
    this.#child ??= this.#log.child(
      'pack.tool',
      Object.assign(addCallIds({}, this.#ids), {
        toolId: this.#toolId,
        traceId: this.#trace.traceId,
        spanId: this.#trace.spanId,
      }),
    );
    return this.#child;
  }

  debug(message: string, fields?: LogFields): void {
    this.#get().debug(message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.#get().info(message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.#get().warn(message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.#get().error(message, fields);
  }
}

// The `call` record's own fields in the published order: id, outcome, durationMs, target, subject, the
// caller's ids, the trace, the pack.
const CALL_FIELDS = [
  'id',
  'outcome',
  'durationMs',
  'target',
  'toolId',
  'checkId',
  ...CALL_ID_FIELDS,
  'traceId',
  'spanId',
  'parentSpanId',
  'packId',
  'artifactVersion',
] as const;

// Each service's `call` record shape, compiled on its first call (its names' text and head once).
const callShapes = new WeakMap<CallLogDeps, RecordShape>();

/** A caller's id as the record carries it: a non-empty string, else left out. */
function callId(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The end of a call: its `call` record and its metrics. `elapsedMs` is the
 * unrounded time since admission (the histogram keeps sub-millisecond calls apart; the record rounds).
 */
export function logCall(
  deps: CallLogDeps,
  target: Target,
  id: string,
  ids: CallIds,
  trace: CallTrace,
  outcome: string,
  elapsedMs: number,
): void {
  deps.metrics?.callEnded(target, id, outcome, elapsedMs);
  endCallSpan(trace, outcome);
  const level = outcome === 'ok' ? 'info' : 'warn';
  if (!deps.log.enabled(level)) return;
  let shape = callShapes.get(deps);
  if (shape === undefined) {
    shape = deps.log.shape('call', CALL_FIELDS);
    callShapes.set(deps, shape);
  }
  const ms = Math.round(elapsedMs);
  const tool = target === 'tool';
  // One value per CALL_FIELDS name, in its order.
  shape.write(level, `${target} ${id} ${outcome} ${ms}ms`, [
    id,
    outcome,
    ms,
    target,
    tool ? id : undefined,
    tool ? undefined : id,
    callId(ids.tenantId),
    callId(ids.projectId),
    callId(ids.orgId),
    callId(ids.runId),
    callId(ids.requestId),
    trace.traceId,
    trace.spanId,
    trace.parentSpanId,
    deps.packId,
    deps.artifactVersion,
  ]);
}

/** `handler-finished-late`: a run that settled after its call was answered (deadline) or dropped. */
export function logLate(deps: CallLogDeps, target: Target, id: string, subject: Subject, afterMs: number): void {
  deps.log.record('handler-finished-late', 'warn', `${target} ${id} finished ${afterMs}ms after its call ended`, {
    target,
    id,
    ...subject,
    afterMs,
    packId: deps.packId,
    artifactVersion: deps.artifactVersion,
  });
}
