import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  type ErrorMessage,
  PACK_HEADERS,
  PACK_PROTOCOL_VERSION,
  type PackRequest,
  type PackResponse,
  packError,
  parsePackRequestText,
  type Result,
} from '@kindgi/protocol';
import type { PackCatalog } from './catalog.js';
import { readBody, sendError, sendJson } from './http-reply.js';
import type { LogFields, PackLog } from './log.js';
import type { HandlerError, ModuleImporter, PackRunners, ToolLogger } from './runners.js';
import { type CallTrace, callTrace } from './trace.js';

/** A bare event for the legacy `logger` function (`{kind:'call', …}`). */
export type LegacyLogger = (event: Record<string, unknown>) => void;

/** What serving one admitted call needs from its service. */
export interface CallDeps {
  catalog: PackCatalog;
  runners: PackRunners;
  log: PackLog;
  legacy: LegacyLogger | undefined;
  packId: string;
  artifactVersion: string;
  maxBodyBytes: number;
  defaultTimeoutMs: number;
  importModule: ModuleImporter | undefined;
}

type Target = 'tool' | 'check';
type StopReason = 'deadline' | 'cancelled';

// setTimeout fires at once for delays beyond a signed 32-bit millisecond count.
const MAX_TIMER_MS = 2 ** 31 - 1;

const CLOSE_WATCHERS = Symbol('kindgi.pack-service.close-watchers');
type WatchedSocket = Socket & { [CLOSE_WATCHERS]?: Set<() => void> };

/**
 * Calls `onClose` when the connection closes; returns the function that stops watching. One `close`
 * listener per connection serves every call on it: a listener per call on the response costs more
 * than the rest of the transport layer together (measured with the benchmark).
 */
function watchClose(socket: Socket, onClose: () => void): () => void {
  const watched = socket as WatchedSocket;
  let callbacks = watched[CLOSE_WATCHERS];
  if (!callbacks) {
    const created = new Set<() => void>();
    callbacks = created;
    watched[CLOSE_WATCHERS] = created;
    socket.once('close', () => {
      for (const callback of created) callback();
      created.clear();
    });
  }
  const set = callbacks;
  set.add(onClose);
  return () => {
    set.delete(onClose);
  };
}

/** The call's deadline from `kindgi-timeout-ms`: a positive integer, else the default. */
export function timeoutFrom(header: string | string[] | undefined, fallback: number): number {
  const raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined || !/^\s*\d+\s*$/.test(raw)) return fallback;
  const value = Number(raw);
  return value > 0 ? Math.min(value, MAX_TIMER_MS) : fallback;
}

const CALL_ID_FIELDS = ['tenantId', 'projectId', 'orgId', 'runId', 'requestId'] as const;

function callIds(request: PackRequest): LogFields {
  const fields: LogFields = {};
  if (request.kind !== 'invoke') return fields;
  for (const name of CALL_ID_FIELDS) {
    const value = request.ctx[name];
    if (typeof value === 'string' && value !== '') fields[name] = value;
  }
  return fields;
}

function toMessage(target: Target, outcome: Result<unknown, HandlerError>): PackResponse {
  if (outcome.kind === 'err') return packError(outcome.error.code, outcome.error.message, outcome.error);
  if (target === 'tool') return { v: PACK_PROTOCOL_VERSION, kind: 'result', output: outcome.value };
  return { v: PACK_PROTOCOL_VERSION, kind: 'check-result', result: outcome.value as { passed: boolean } };
}

/**
 * Serves one admitted `POST /v1/invoke`: reads the body, parses it, finds the tool or check, and runs it
 * under a deadline and the caller's connection. The reply goes out when the run settles, when the
 * deadline passes (the run keeps going and its late finish is logged), or never when the caller left.
 */
export async function serveInvoke(
  deps: CallDeps,
  req: IncomingMessage,
  res: ServerResponse,
  admittedAt: number,
): Promise<void> {
  const elapsed = (): number => Math.round(performance.now() - admittedAt);
  const reply = (message: PackResponse): void => {
    sendJson(res, 200, JSON.stringify(message), {
      [PACK_HEADERS.durationMs]: String(elapsed()),
      [PACK_HEADERS.artifactVersion]: deps.artifactVersion,
    });
  };

  const body = await readBody(req, deps.maxBodyBytes);
  if (body.kind === 'aborted') return;
  if (body.kind === 'too-large') {
    sendError(res, 413, 'Request body too large');
    return;
  }
  const parsed = parsePackRequestText(body.text);
  if (parsed.kind === 'err') {
    reply(parsed.error);
    return;
  }
  const request = parsed.value;
  const trace = callTrace(req.headers[PACK_HEADERS.traceparent]);
  const target: Target = request.kind === 'invoke' ? 'tool' : 'check';
  const id = request.kind === 'invoke' ? request.tool.id : request.check.id;
  const subject = target === 'tool' ? { toolId: id } : { checkId: id };
  const record = (outcome: string): void =>
    logCall(deps, { target, id, subject, request, trace, outcome, ms: elapsed() });

  const found =
    request.kind === 'invoke' ? deps.catalog.findTool(request.tool) : deps.catalog.findCheck(request.check.id);
  if (found.kind === 'err') {
    reply(found.error);
    record(found.error.code);
    return;
  }

  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let unwatch: (() => void) | undefined;
  const stopped = new Promise<StopReason>((resolve) => {
    timer = setTimeout(
      () => resolve('deadline'),
      timeoutFrom(req.headers[PACK_HEADERS.timeoutMs], deps.defaultTimeoutMs),
    );
    unwatch = watchClose(req.socket, () => {
      if (!res.writableEnded) resolve('cancelled');
    });
    if (res.destroyed || req.socket.destroyed) resolve('cancelled');
  });

  const run = startRun(deps, request, found.value, controller.signal, trace);
  const first = await Promise.race([run, stopped]);
  clearTimeout(timer);
  unwatch?.();

  if (typeof first === 'string') {
    const stoppedAt = performance.now();
    const message =
      first === 'deadline'
        ? packError('deadline-exceeded', `\`${id}\` passed its deadline`, subject)
        : packError('cancelled', `\`${id}\` was cancelled`, subject);
    controller.abort(new DOMException(message.message, first === 'deadline' ? 'TimeoutError' : 'AbortError'));
    if (first === 'deadline') reply(message);
    record(message.code);
    const late = () => logLate(deps, target, id, subject, Math.round(performance.now() - stoppedAt));
    // A runner that rejects (it should never) must not become an unhandled rejection after the reply.
    void run.then(late, late);
    return;
  }
  const message = toMessage(target, first);
  reply(message);
  record(message.kind === 'error' ? (message as ErrorMessage).code : 'ok');
}

function startRun(
  deps: CallDeps,
  request: PackRequest,
  found: { modulePath: string; entry: Record<string, unknown> },
  signal: AbortSignal,
  trace: CallTrace,
): Promise<Result<unknown, HandlerError>> {
  if (request.kind === 'invoke') {
    const entry = found.entry as { id: string; input: unknown; output: unknown; version?: string };
    const log = lazyToolLog(deps.log, () => ({
      ...callIds(request),
      toolId: entry.id,
      traceId: trace.traceId,
      spanId: trace.spanId,
    }));
    return deps.runners.runHandler({
      tool: { id: entry.id, modulePath: found.modulePath, inputSchema: entry.input, outputSchema: entry.output },
      input: request.input,
      ctx: { ...request.ctx, abortSignal: signal },
      ...(deps.importModule ? { importHandler: deps.importModule } : {}),
      log,
    });
  }
  const entry = found.entry as { configSchema?: unknown };
  return deps.runners.runCheck({
    check: {
      id: request.check.id,
      modulePath: found.modulePath,
      ...(entry.configSchema !== undefined ? { configSchema: entry.configSchema } : {}),
    },
    config: request.config,
    trace: request.trace,
    abortSignal: signal,
    ...(deps.importModule ? { importCheck: deps.importModule } : {}),
  });
}

/** `ctx.log` for one call, built on first use: most handlers never log, and every call pays for it otherwise. */
function lazyToolLog(log: PackLog, fields: () => LogFields): ToolLogger {
  let child: PackLog | undefined;
  const get = (): PackLog => {
    child ??= log.child('pack.tool', fields());
    return child;
  };
  return {
    debug: (message, extra) => get().debug(message, extra),
    info: (message, extra) => get().info(message, extra),
    warn: (message, extra) => get().warn(message, extra),
    error: (message, extra) => get().error(message, extra),
  };
}

interface CallRecord {
  target: Target;
  id: string;
  subject: { toolId: string } | { checkId: string };
  request: PackRequest;
  trace: CallTrace;
  outcome: string;
  ms: number;
}

function logCall(deps: CallDeps, call: CallRecord): void {
  deps.legacy?.({ kind: 'call', target: call.target, id: call.id, durationMs: call.ms, outcome: call.outcome });
  const level = call.outcome === 'ok' ? 'info' : 'warn';
  if (!deps.log.enabled(level)) return;
  deps.log.record('call', level, `${call.target} ${call.id} ${call.outcome} ${call.ms}ms`, {
    id: call.id,
    outcome: call.outcome,
    durationMs: call.ms,
    target: call.target,
    ...call.subject,
    ...callIds(call.request),
    traceId: call.trace.traceId,
    spanId: call.trace.spanId,
    packId: deps.packId,
    artifactVersion: deps.artifactVersion,
  });
}

function logLate(deps: CallDeps, target: Target, id: string, subject: object, afterMs: number): void {
  deps.legacy?.({ kind: 'handler-finished-late', target, id, afterMs });
  deps.log.record('handler-finished-late', 'warn', `${target} ${id} finished ${afterMs}ms after its call ended`, {
    target,
    id,
    ...subject,
    afterMs,
    packId: deps.packId,
    artifactVersion: deps.artifactVersion,
  });
}
