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
import { parseTimeoutMs, readBody, sendCallReply, sendError } from '../transport/http-reply.js';
import { type CallLogDeps, callIdsOf, LazyToolLog, logCall, logLate, type Subject, type Target } from './call-log.js';
import type { CatalogTool, PackCatalog } from './catalog.js';
import { DeferredAbortSignal, type HandlerError, type ModuleImporter, type PackRunners } from './runners.js';
import { withDeclaredSecrets } from './secrets.js';
import { startCallSpan, withCallSpan } from './spans.js';
import { type CallTrace, callTrace } from './trace.js';

export type { LegacyLogger } from './call-log.js';

/** What serving one admitted call needs from its service. */
export interface CallDeps extends CallLogDeps {
  catalog: PackCatalog;
  runners: PackRunners;
  maxBodyBytes: number;
  /** The largest reply body sent; a bigger one is answered `output-too-large`. */
  maxOutputBytes: number;
  defaultTimeoutMs: number;
  importModule: ModuleImporter | undefined;
}

type StopReason = 'deadline' | 'cancelled';
type RunOutcome = Result<unknown, HandlerError>;

const CLOSE_WATCHERS = Symbol('kindgi.pack-service.close-watchers');
type WatchedSocket = Socket & { [CLOSE_WATCHERS]?: Set<() => void> };

/**
 * Calls `onClose` when the connection closes; returns the set to delete it from to stop watching. One
 * `close` listener per connection serves every call on it: a listener per call on the response costs
 * more than the rest of the transport layer together (measured with the benchmark).
 */
function watchClose(socket: Socket, onClose: () => void): Set<() => void> {
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
  callbacks.add(onClose);
  return callbacks;
}

/** The call's deadline from `kindgi-timeout-ms`: a positive integer, else the default. */
export function timeoutFrom(header: string | string[] | undefined, fallback: number): number {
  return parseTimeoutMs(header) ?? fallback;
}

function toMessage(target: Target, outcome: RunOutcome): PackResponse {
  if (outcome.kind === 'err') return packError(outcome.error.code, outcome.error.message, outcome.error);
  if (target === 'tool') return { v: PACK_PROTOCOL_VERSION, kind: 'result', output: outcome.value };
  return { v: PACK_PROTOCOL_VERSION, kind: 'check-result', result: outcome.value as { passed: boolean } };
}

/** A 200 with a v2 message, its duration since admission and the artifact version. */
function reply(deps: CallDeps, res: ServerResponse, admittedAt: number, message: PackResponse): void {
  sendCallReply(res, JSON.stringify(message), Math.round(performance.now() - admittedAt), deps.artifactVersion);
}

/**
 * The reply body for a run's message, or the `output-too-large` error to send instead. (The runner has
 * already refused an output JSON cannot carry.) Kept a string: node:http sends a string body in one
 * write with the headers, a Buffer in a second one.
 */
function encodeOutcome(deps: CallDeps, message: PackResponse, subject: Subject, id: string): string | ErrorMessage {
  const text = JSON.stringify(message);
  // UTF-8 needs at most 3 bytes per UTF-16 unit: most replies are within the limit without measuring.
  if (text.length * 3 <= deps.maxOutputBytes) return text;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= deps.maxOutputBytes) return text;
  return packError(
    'output-too-large',
    `The result of \`${id}\` is ${bytes} bytes, over this service's limit of ${deps.maxOutputBytes} bytes`,
    subject,
  );
}

/**
 * Serves one admitted `POST /v1/invoke`: reads the body, parses it, finds the tool or check, and runs it
 * under a deadline and the caller's connection. The reply goes out when the run settles, when the
 * deadline passes (the run keeps going and its late finish is logged), or never when the caller left.
 * Rejects only when the runner itself fails.
 */
export async function serveInvoke(
  deps: CallDeps,
  req: IncomingMessage,
  res: ServerResponse,
  admittedAt: number,
): Promise<void> {
  const body = await readBody(req, deps.maxBodyBytes);
  if (body.kind === 'aborted') return;
  if (body.kind === 'too-large') {
    sendError(res, 413, 'Request body too large');
    return;
  }
  const parsed = parsePackRequestText(body.body.toString('utf8'));
  if (parsed.kind === 'err') {
    reply(deps, res, admittedAt, parsed.error);
    return;
  }
  const request = parsed.value;
  const traceparent = req.headers[PACK_HEADERS.traceparent];
  let trace = callTrace(traceparent);
  const ids = callIdsOf(request, req.headers);
  const target: Target = request.kind === 'invoke' ? 'tool' : 'check';
  const id = request.kind === 'invoke' ? request.tool.id : request.check.id;

  const found =
    request.kind === 'invoke' ? deps.catalog.findTool(request.tool) : deps.catalog.findCheck(request.check.id);
  if (found.kind === 'err') {
    reply(deps, res, admittedAt, found.error);
    logCall(deps, target, id, ids, trace, found.error.code, performance.now() - admittedAt);
    return;
  }
  if (deps.tracing) trace = startCallSpan(target, id, typeof traceparent === 'string' ? traceparent : undefined, trace);

  // The signal is made only if pack code reads it: most handlers never do, and a controller is costly.
  const abort = new DeferredAbortSignal();
  let timer: NodeJS.Timeout | undefined;
  let watchers: Set<() => void> | undefined;
  let onClose: (() => void) | undefined;
  let run: Promise<RunOutcome> | undefined;
  // One promise settled by whichever comes first: the run, the deadline, or the caller leaving.
  const first = new Promise<RunOutcome | StopReason>((resolve, reject) => {
    timer = setTimeout(resolve, timeoutFrom(req.headers[PACK_HEADERS.timeoutMs], deps.defaultTimeoutMs), 'deadline');
    onClose = () => {
      if (!res.writableEnded) resolve('cancelled');
    };
    watchers = watchClose(req.socket, onClose);
    if (res.destroyed || req.socket.destroyed) resolve('cancelled');
    const runTrace = trace;
    run = withCallSpan(runTrace, () => startRun(deps, request, found.value, abort, runTrace));
    run.then(resolve, reject);
  });
  let outcome: RunOutcome | StopReason;
  try {
    outcome = await first;
  } finally {
    clearTimeout(timer);
    watchers?.delete(onClose as () => void);
  }

  if (typeof outcome === 'string') {
    const stoppedAt = performance.now();
    const subject: Subject = target === 'tool' ? { toolId: id } : { checkId: id };
    const message =
      outcome === 'deadline'
        ? packError('deadline-exceeded', `\`${id}\` passed its deadline`, subject)
        : packError('cancelled', `\`${id}\` was cancelled`, subject);
    abort.abort(new DOMException(message.message, outcome === 'deadline' ? 'TimeoutError' : 'AbortError'));
    if (outcome === 'deadline') reply(deps, res, admittedAt, message);
    logCall(deps, target, id, ids, trace, message.code, performance.now() - admittedAt);
    const late = () => logLate(deps, target, id, subject, Math.round(performance.now() - stoppedAt));
    // A runner that rejects (it should never) must not become an unhandled rejection after the reply.
    void (run as Promise<RunOutcome>).then(late, late);
    return;
  }
  const subject: Subject = target === 'tool' ? { toolId: id } : { checkId: id };
  let message = toMessage(target, outcome);
  const encoded = encodeOutcome(deps, message, subject, id);
  if (typeof encoded === 'string') {
    sendCallReply(res, encoded, Math.round(performance.now() - admittedAt), deps.artifactVersion);
  } else {
    message = encoded;
    reply(deps, res, admittedAt, message);
  }
  const code = message.kind === 'error' ? (message as ErrorMessage).code : 'ok';
  logCall(deps, target, id, ids, trace, code, performance.now() - admittedAt);
}

function startRun(
  deps: CallDeps,
  request: PackRequest,
  found: CatalogTool | { modulePath: string; entry: Record<string, unknown> },
  abort: DeferredAbortSignal,
  trace: CallTrace,
): Promise<RunOutcome> {
  if (request.kind === 'invoke') {
    const tool = found as CatalogTool;
    const entry = tool.entry;
    return deps.runners.runHandler({
      tool: { id: entry.id, modulePath: found.modulePath, inputSchema: entry.input, outputSchema: entry.output },
      input: request.input,
      ctx: withDeclaredSecrets(deps, entry.id, tool.secrets, request.ctx),
      abortSignal: abort,
      ...(deps.importModule ? { importHandler: deps.importModule } : {}),
      log: new LazyToolLog(deps.log, request.ctx, entry.id, trace),
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
    abortSignal: abort.signal,
    ...(deps.importModule ? { importCheck: deps.importModule } : {}),
  });
}
