import type { IncomingMessage, ServerResponse } from 'node:http';
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
import {
  type BodyOutcome,
  type BodySink,
  parseTimeoutMs,
  readBodyThen,
  sendCallReply,
  sendError,
} from '../transport/http-reply.js';
import {
  type CallIds,
  type CallLogDeps,
  callIdsOf,
  LazyToolLog,
  logCall,
  logLate,
  type Subject,
  type Target,
} from './call-log.js';
import type { CatalogTool, PackCatalog } from './catalog.js';
import { type CloseWatcher, type ConnectionWatchers, watchClose } from './close-watch.js';
import { type DeadlineEntry, type DeadlineHandle, DeadlineLists } from './deadline-list.js';
import { DeferredAbortSignal, type HandlerError, type ModuleImporter, type PackRunners } from './runners.js';
import { withDeclaredSecrets } from './secrets.js';
import { startCallSpan, withCallSpan } from './spans.js';
import { type CallTrace, callTrace } from './trace.js';

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

/**
 * How a served call ends for its service: `failed` when the runner itself failed (it should never) or the
 * service threw while handling the call; `thrown` is then what it threw. Called once per call.
 */
export type CallEnded = (res: ServerResponse, failed: boolean, thrown?: unknown) => void;

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

// Every service of the process shares the lists: calls with the same timeout share one timer.
const deadlines = new DeadlineLists();

/**
 * One admitted `POST /v1/invoke`, from its body to its reply. Callbacks instead of `async`/`await`: the
 * promises and microtask turns of an awaited body, an awaited race and the service's `.then` were a
 * measurable part of a small call's CPU time. Exactly one of the run, the deadline and the caller
 * leaving settles the call; the service hears of its end once.
 */
class InvokeCall implements BodySink, CloseWatcher, DeadlineEntry {
  readonly #abort = new DeferredAbortSignal();
  #deadline: DeadlineHandle | undefined;
  #watchers: ConnectionWatchers | undefined;
  #run: Promise<RunOutcome> | undefined;
  #settled = false;
  #ended = false;
  #target: Target = 'tool';
  #id = '';
  #ids: CallIds = {};
  #trace: CallTrace | undefined;

  constructor(
    readonly deps: CallDeps,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly admittedAt: number,
    readonly ended: CallEnded,
  ) {}

  onBody(body: BodyOutcome): void {
    try {
      if (!this.#begin(body)) this.#end(false);
    } catch (thrown) {
      this.#end(true, thrown);
    }
  }

  expire(): void {
    this.stop('deadline');
  }

  onSocketClose(): void {
    if (!this.res.writableEnded) this.stop('cancelled');
  }

  /** Starts the run; false when the call ended before it (a bad body, request or subject). */
  #begin(body: BodyOutcome): boolean {
    const { deps, req, res, admittedAt } = this;
    if (body.kind === 'aborted') return false;
    if (body.kind === 'too-large') {
      sendError(res, 413, 'Request body too large');
      return false;
    }
    const parsed = parsePackRequestText(body.body.toString('utf8'));
    if (parsed.kind === 'err') {
      reply(deps, res, admittedAt, parsed.error);
      return false;
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
      return false;
    }
    if (deps.tracing)
      trace = startCallSpan(target, id, typeof traceparent === 'string' ? traceparent : undefined, trace);
    this.#target = target;
    this.#id = id;
    this.#ids = ids;
    this.#trace = trace;

    this.#deadline = deadlines.add(this, timeoutFrom(req.headers[PACK_HEADERS.timeoutMs], deps.defaultTimeoutMs));
    this.#watchers = watchClose(req.socket, this);
    const leftAlready = res.destroyed || req.socket.destroyed;
    const runTrace = trace;
    const run =
      runTrace.span === undefined
        ? startRun(deps, request, found.value, this.#abort, runTrace)
        : withCallSpan(runTrace, () => startRun(deps, request, found.value, this.#abort, runTrace));
    this.#run = run;
    run.then(
      (outcome) => this.#finish(outcome),
      (thrown: unknown) => this.#fail(thrown),
    );
    if (leftAlready) this.stop('cancelled');
    return true;
  }

  /** Settles the call first, or reports false when something else already did. */
  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    if (this.#deadline !== undefined) deadlines.remove(this.#deadline);
    this.#watchers?.delete(this);
    return true;
  }

  /** The deadline passed or the caller left before the run settled: answer (deadline) and log. */
  stop(reason: StopReason): void {
    // Before the run starts, a caller found gone is handled once it has (the run still starts, as ever).
    if (this.#run === undefined || !this.#settle()) return;
    try {
      const { deps, res, admittedAt } = this;
      const target = this.#target;
      const id = this.#id;
      const stoppedAt = performance.now();
      const subject: Subject = target === 'tool' ? { toolId: id } : { checkId: id };
      const message =
        reason === 'deadline'
          ? packError('deadline-exceeded', `\`${id}\` passed its deadline`, subject)
          : packError('cancelled', `\`${id}\` was cancelled`, subject);
      this.#abort.abort(new DOMException(message.message, reason === 'deadline' ? 'TimeoutError' : 'AbortError'));
      if (reason === 'deadline') reply(deps, res, admittedAt, message);
      logCall(deps, target, id, this.#ids, this.#trace as CallTrace, message.code, performance.now() - admittedAt);
      const late = () => logLate(deps, target, id, subject, Math.round(performance.now() - stoppedAt));
      // A runner that rejects (it should never) must not become an unhandled rejection after the reply.
      void this.#run.then(late, late);
      this.#end(false);
    } catch (thrown) {
      this.#end(true, thrown);
    }
  }

  #finish(outcome: RunOutcome): void {
    if (!this.#settle()) return;
    try {
      const { deps, res, admittedAt } = this;
      const target = this.#target;
      const id = this.#id;
      let message = toMessage(target, outcome);
      const encoded = encodeOutcome(deps, message, target === 'tool' ? { toolId: id } : { checkId: id }, id);
      if (typeof encoded === 'string') {
        sendCallReply(res, encoded, Math.round(performance.now() - admittedAt), deps.artifactVersion);
      } else {
        message = encoded;
        reply(deps, res, admittedAt, message);
      }
      const code = message.kind === 'error' ? (message as ErrorMessage).code : 'ok';
      logCall(deps, target, id, this.#ids, this.#trace as CallTrace, code, performance.now() - admittedAt);
      this.#end(false);
    } catch (thrown) {
      this.#end(true, thrown);
    }
  }

  #fail(thrown: unknown): void {
    if (this.#settle()) this.#end(true, thrown);
  }

  #end(failed: boolean, thrown?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.ended(this.res, failed, thrown);
  }
}

/**
 * Serves one admitted `POST /v1/invoke`: reads the body, parses it, finds the tool or check, and runs it
 * under a deadline and the caller's connection. The reply goes out when the run settles, when the
 * deadline passes (the run keeps going and its late finish is logged), or never when the caller left.
 * `ended` hears once when the call is done; `failed` only when the runner itself failed.
 */
export function serveInvoke(
  deps: CallDeps,
  req: IncomingMessage,
  res: ServerResponse,
  admittedAt: number,
  ended: CallEnded,
): void {
  readBodyThen(req, deps.maxBodyBytes, new InvokeCall(deps, req, res, admittedAt, ended));
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
    const id = tool.entry.id;
    const ctx = withDeclaredSecrets(deps, id, tool.secrets, request.ctx);
    const log = new LazyToolLog(deps.log, request.ctx, id, trace);
    // Two literals rather than a spread: the options object is made on every call.
    return deps.runners.runHandler(
      deps.importModule === undefined
        ? { tool: tool.runnable, input: request.input, ctx, abortSignal: abort, log }
        : { tool: tool.runnable, input: request.input, ctx, abortSignal: abort, log, importHandler: deps.importModule },
    );
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
