import type { ApiLogger, RunEvent, RunRecord, RunStore } from '@kindgi/bindings';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors/api-error.js';
import { must, TERMINAL_EVENTS, TERMINAL_STATUSES } from './store-result.js';

/** How a run stream paces itself. */
export interface StreamTiming {
  /** Comment frames at least this often while nothing happens. Default 15 s. */
  keepAliveMs: number;
  /** How often the journal is re-read (events written by other instances). Default 1 s. */
  pollMs: number;
  /** A stream ends after this long; the client resumes with Last-Event-Id. Default 5 min. */
  maxDurationMs: number;
}

/**
 * Checks `Last-Event-Id` (`<runId>:<sequence>`) against the run's journal: the sequence to resume after.
 * Another run's id, a malformed one or a sequence the journal never issued is 400 `bad-input`.
 */
export async function resumePoint(runStore: RunStore, run: RunRecord, header: string | undefined): Promise<number> {
  if (header === undefined || header.trim() === '') return 0;
  const colon = header.lastIndexOf(':');
  const runId = header.slice(0, colon);
  const sequenceText = header.slice(colon + 1);
  if (colon <= 0 || !/^\d{1,15}$/.test(sequenceText)) {
    throw new ApiError('bad-input', 'Last-Event-Id must be <runId>:<sequence>.', { header: 'Last-Event-Id' });
  }
  if (runId !== run.runId) {
    throw new ApiError('bad-input', 'Last-Event-Id belongs to another run.', { header: 'Last-Event-Id' });
  }
  const sequence = Number(sequenceText);
  if (sequence === 0) return 0;
  const events = must(await runStore.listEvents(run.tenantId, run.runId, sequence - 1));
  if (events[0]?.sequence !== sequence) {
    throw new ApiError('bad-input', 'Last-Event-Id names an event this run never had.', { header: 'Last-Event-Id' });
  }
  return sequence;
}

/** Streams the run's journal after `afterSequence` as SSE frames until the terminal event. */
export function streamRunEvents(
  c: Context<AppEnv>,
  deps: { runStore: RunStore; timing: StreamTiming; logger: ApiLogger },
  run: RunRecord,
  afterSequence: number,
): Response {
  const { runStore, timing } = deps;
  return streamSSE(c, async (stream) => {
    let after = afterSequence;
    let dirty = true;
    let wake: (() => void) | undefined;
    const unwatch = runStore.watch(run.tenantId, run.runId, () => {
      dirty = true;
      wake?.();
    });
    stream.onAbort(() => wake?.());
    const endAt = Date.now() + timing.maxDurationMs;
    let lastWrite = Date.now();
    try {
      while (!stream.aborted && !stream.closed) {
        dirty = false;
        const events: RunEvent[] = must(await runStore.listEvents(run.tenantId, run.runId, after));
        for (const event of events) {
          const terminal = TERMINAL_EVENTS.has(event.kind);
          // The journal keeps a terminal record without its output (stored once, on the run): read it back.
          const data = terminal
            ? ((must(await runStore.get(run.tenantId, run.runId)) ?? event.data) as unknown)
            : event.data;
          await stream.writeSSE({
            id: `${run.runId}:${event.sequence}`,
            event: event.kind,
            data: JSON.stringify(data),
          });
          lastWrite = Date.now();
          after = event.sequence;
          if (terminal) return;
        }
        // Resumed after the terminal event (a browser reconnects so after the normal close): nothing follows.
        if (events.length === 0 && (await finishedAt(runStore, run, after))) return;
        if (Date.now() >= endAt) return;
        if (!dirty) {
          const waitMs = Math.max(
            1,
            Math.min(timing.pollMs, lastWrite + timing.keepAliveMs - Date.now(), endAt - Date.now()),
          );
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, waitMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = undefined;
        }
        if (Date.now() - lastWrite >= timing.keepAliveMs) {
          await stream.write(': keep-alive\n\n');
          lastWrite = Date.now();
        }
      }
    } catch (thrown) {
      // Headers are gone already: the failure travels as a last frame, then the stream ends.
      const error = thrown instanceof ApiError ? thrown : new ApiError('internal-server-error', 'The stream failed.');
      if (!(thrown instanceof ApiError))
        deps.logger.error('run stream failed', { runId: run.runId, error: String(thrown) });
      await stream.writeSSE({ event: 'error', data: JSON.stringify({ code: error.code, message: error.message }) });
    } finally {
      unwatch();
    }
  });
}

/** True when the run is terminal and its journal holds nothing after `after`: its stream has nothing left. */
async function finishedAt(runStore: RunStore, run: RunRecord, after: number): Promise<boolean> {
  const current = must(await runStore.get(run.tenantId, run.runId));
  if (current === null || !TERMINAL_STATUSES.has(current.status)) return false;
  // The terminal event is journaled with the status change, so re-reading now sees it if it is still due.
  return must(await runStore.listEvents(run.tenantId, run.runId, after)).length === 0;
}
