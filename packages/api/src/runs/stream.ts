import type { RunRecord, RunStore } from '@kindgi/bindings';
import type { Context } from 'hono';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors/api-error.js';
import { must } from '../errors/run-errors.js';
import { slicesOf } from '../responses/sliced-body.js';
import type { FeedEvent, RunFeed } from './run-feed.js';
import type { RunFeeds } from './run-feeds.js';
import type { StreamSlots } from './stream-slots.js';

/** Which run a stream follows. */
export type RunRef = Pick<RunRecord, 'tenantId' | 'runId'>;

/** How a run stream paces itself. */
export interface StreamTiming {
  /** Comment frames at least this often while nothing happens. Default 15 s. */
  keepAliveMs: number;
  /** How often a run's journal is re-read without an announced change (events of other instances). Default 1 s. */
  pollMs: number;
  /** A stream ends after this long; the client resumes with Last-Event-Id. Default 5 min. */
  maxDurationMs: number;
}

/** SSE settings: pacing, and the cap on one tenant's open streams in one process. */
export interface SseOptions extends StreamTiming {
  /** Streams one tenant may hold open on this server; one more is 429 `too-many-streams`. Default 256. */
  maxStreamsPerTenant: number;
}

/**
 * Checks `Last-Event-Id` (`<runId>:<sequence>`) against the run's journal: the sequence to resume after.
 * Another run's id, a malformed one or a sequence the journal never issued is 400 `bad-input`.
 */
export async function resumePoint(runStore: RunStore, run: RunRef, header: string | undefined): Promise<number> {
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

/** What a run stream needs: the process's feeds and per-tenant stream slots, and its pacing. */
export interface StreamDeps {
  feeds: RunFeeds;
  slots: StreamSlots;
  timing: StreamTiming;
}

const KEEP_ALIVE = Buffer.from(': keep-alive\n\n');

/**
 * Streams the run's journal after `afterSequence` as SSE frames until the terminal event. The frames come
 * from the run's shared feed, and are produced only as fast as the client reads them. 429 `too-many-streams`
 * when the tenant holds `slots.maxPerTenant` streams in this process already.
 */
export function streamRunEvents(c: Context<AppEnv>, deps: StreamDeps, run: RunRef, afterSequence: number): Response {
  // HEAD answers the GET's headers and drops its body unread: a stream made for it would never be released.
  if (c.req.method === 'HEAD') return sseResponse(c, null);
  const releaseSlot = deps.slots.take(run.tenantId);
  if (releaseSlot === undefined) {
    throw new ApiError(
      'too-many-streams',
      `This tenant has ${deps.slots.maxPerTenant} event streams open on this server; close one or retry later.`,
      { limit: deps.slots.maxPerTenant },
      { 'retry-after': String(STREAMS_RETRY_AFTER_S) },
    );
  }
  const feed = deps.feeds.acquire(run.tenantId, run.runId);
  const stop = new AbortController();
  const frames = followFeed(feed, afterSequence, deps.timing, stop.signal);
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    stop.abort();
    deps.feeds.release(feed);
    releaseSlot();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let next: IteratorResult<Uint8Array>;
        try {
          next = await frames.next();
        } catch (cause) {
          close();
          throw cause;
        }
        if (!open) return;
        if (next.done) {
          close();
          controller.close();
        } else controller.enqueue(next.value);
      },
      async cancel() {
        close();
        await frames.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return sseResponse(c, body);
}

function sseResponse(c: Context<AppEnv>, body: ReadableStream<Uint8Array> | null): Response {
  c.header('content-type', 'text/event-stream');
  c.header('cache-control', 'no-cache');
  c.header('connection', 'keep-alive');
  c.header('transfer-encoding', 'chunked');
  return body === null ? c.body(null, 200) : c.body(body, 200);
}

/** Seconds a refused stream is told to wait: a stream ends within `maxDurationMs` at most. */
const STREAMS_RETRY_AFTER_S = 5;

/** The frames one stream sends: the feed's events after `after`, keep-alives while idle, an error frame on failure. */
async function* followFeed(
  feed: RunFeed,
  afterSequence: number,
  timing: StreamTiming,
  signal: AbortSignal,
): AsyncGenerator<Uint8Array> {
  const endAt = Date.now() + timing.maxDurationMs;
  let after = afterSequence;
  let next = 0;
  let lastWrite = Date.now();
  while (!signal.aborted) {
    for (; next < feed.events.length; next++) {
      const event = feed.events[next] as FeedEvent;
      if (event.sequence <= after) continue;
      for (const part of event.frame) yield* slicesOf(part);
      lastWrite = Date.now();
      after = event.sequence;
      if (event.terminal) return;
    }
    if (feed.failure !== undefined) {
      const { code, message } = feed.failure;
      yield Buffer.from(`event: error\ndata: ${JSON.stringify({ code, message })}\n\n`);
      return;
    }
    // Resumed after the terminal event (a browser reconnects so after the normal close): nothing follows.
    if (feed.ended || Date.now() >= endAt) return;
    await feed.nextChange(Math.max(1, Math.min(lastWrite + timing.keepAliveMs, endAt) - Date.now()), signal);
    if (!signal.aborted && Date.now() - lastWrite >= timing.keepAliveMs) {
      yield KEEP_ALIVE;
      lastWrite = Date.now();
    }
  }
}
