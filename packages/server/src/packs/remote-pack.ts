import { mkdir } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ByteBudget, composePackCall, retryLayer } from '@kindgi/bindings';
import { createPackServiceClient, type PackServiceClient, type ReplyBudget } from '@kindgi/pack-service';
import { DEFAULT_MAX_OUTPUT_BYTES, err, ok, type PackIndex, type Result } from '@kindgi/protocol';
import { z } from 'zod';
import type { ServerLogger } from '../telemetry/logger.js';
import type { ServerMetrics } from '../telemetry/metrics.js';
import { clientCaller } from './pack-caller.js';
import type { PackHost } from './pack-host.js';
import {
  type FetchedIndex,
  firstRemoteIndex,
  type KnownIndex,
  refreshRemoteIndex,
  remoteIsReady,
} from './remote-index.js';
import { prepareOutputCheck, remoteOutputCheckLayer } from './remote-output-check.js';

/** A pack served by a pack service running elsewhere (a pack image), instead of one this server starts. */
export const remotePackSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  /** The service's `KINDGI_PACK_SERVICE_TOKEN`. */
  token: z
    .string()
    .min(1)
    .regex(/^[\x21-\x7e]+$/, 'a pack token is printable ASCII without spaces'),
  /** How often `/readyz` and `/v1/info` are polled (a new `artifactVersion` refreshes the tools). Default 5000. */
  pollMs: z.number().int().min(50).default(5000),
  /**
   * The least time between two reads of `/v1/index` (a new `artifactVersion` seen sooner waits for it).
   * Default 10000. A read whose tools are unchanged (same content hash) rebuilds nothing.
   */
  minRefreshMs: z.number().int().min(0).default(10_000),
  /** The longest a call waits through the service's 503s (after each `Retry-After`) before answering them. Default 5000. */
  retryMs: z.number().int().min(0).default(5000),
  /**
   * No longer used, still accepted so older configs load: every call's deadline is its caller's, else the
   * one default (`DEFAULT_CALL_TIMEOUT_MS`, 120 s), on every pack alike. A start with it set logs a warning.
   */
  timeoutMs: z.number().int().positive().optional(),
  /** How long the server's start waits for the service's first `/v1/info`. Default 30000. */
  startTimeoutMs: z.number().int().min(0).default(30_000),
  /** Lets tenant secrets travel to this pack over plain http to another machine (docs/secrets.md). */
  allowInsecureSecrets: z.boolean().default(false),
});

export type RemotePackConfig = z.output<typeof remotePackSchema>;

/**
 * `remoteReplies`: the bytes of remote packs' replies this process reads at once, shared by every remote pack
 * (each reply holds its declared length, at most the 10 MiB reply cap, from its first byte until it is decoded),
 * and how long a call waits for room before it is refused unsent.
 */
export const remoteRepliesSchema = z.strictObject({
  /** Default 64 MiB; at least the reply cap (10 MiB), so the largest reply fits. */
  budgetBytes: z
    .number()
    .int()
    .min(DEFAULT_MAX_OUTPUT_BYTES)
    .default(64 * 1024 * 1024),
  /** Default 2000; past it the call is `pack-unavailable` (503, `Retry-After: 1`) and never sent. */
  admitWaitMs: z.number().int().min(0).max(60_000).default(2_000),
});

export type RemoteRepliesConfig = z.output<typeof remoteRepliesSchema>;

/** The reply budget every remote pack of a process shares. */
export interface RemoteReplies {
  budget: ReplyBudget;
  admitWaitMs: number;
}

/** The one reply budget of a process, from its config. */
export function remoteReplyBudget(config: RemoteRepliesConfig): RemoteReplies {
  return { budget: new ByteBudget(config.budgetBytes), admitWaitMs: config.admitWaitMs };
}

export interface RemotePackHostOptions {
  pack: RemotePackConfig;
  /** Where the fetched index is kept. */
  workDir: string;
  logger: ServerLogger;
  metrics?: ServerMetrics;
  /** Called after the service's `artifactVersion` changed and its new index, serving other tools, was read. */
  onReindexed?: (index: PackIndex) => void;
  /** The reply budget shared by the process's remote packs; without it, one of the default size for this pack. */
  replies?: RemoteReplies;
}

const POLL_TIMEOUT_MS = 2_000;

function backoffMs(attempt: number): number {
  return Math.min(100 * 2 ** attempt, 1_000);
}

async function firstIndex(
  options: RemotePackHostOptions,
  client: PackServiceClient,
): Promise<Result<FetchedIndex, string>> {
  const { pack } = options;
  const until = performance.now() + pack.startTimeoutMs;
  for (let attempt = 0; ; attempt++) {
    const fetched = await firstRemoteIndex(pack, client, options.workDir, AbortSignal.timeout(POLL_TIMEOUT_MS));
    if (fetched.kind === 'ok') return ok(fetched.value);
    const waitMs = backoffMs(attempt) * 2;
    if (performance.now() + waitMs > until)
      return err(`${pack.url}: the remote pack service did not answer: ${fetched.error}`);
    await sleep(waitMs);
  }
}

/** Logs each entry a remote index named under another pack's id: refused, the pack's other entries serve. */
function logRefused(logger: ServerLogger, packId: string, url: string, fetched: FetchedIndex): void {
  for (const entry of fetched.refused) {
    const message = `pack ${packId} (${url}): ${entry.kind} ${entry.id} refused: ${entry.foreignId} does not start with "${packId}."`;
    logger.log('error', 'pack-remote-id-refused', message, { packId, ...entry });
  }
}

/** What the poller keeps current: the index served (and what it knows of it), and whether `/readyz` answered. */
interface RemoteState {
  readonly packId: string;
  known: KnownIndex;
  ready: boolean;
}

/** One poll: `/readyz`, then (when ready) `/v1/info` and, on a new `artifactVersion`, the index. */
async function pollOnce(
  options: RemotePackHostOptions,
  client: PackServiceClient,
  state: RemoteState,
  signal: AbortSignal,
): Promise<void> {
  const { pack, logger, metrics } = options;
  const { packId } = state;
  const ready = await remoteIsReady(pack.url, signal);
  if (ready !== state.ready) {
    const [level, event] = ready
      ? (['info', 'pack-remote-ready'] as const)
      : (['warn', 'pack-remote-unready'] as const);
    logger.log(level, event, `pack ${packId}: ${pack.url} is ${ready ? 'ready' : 'not ready'}`, { packId });
  }
  state.ready = ready;
  metrics?.remoteReady(packId, ready);
  if (!ready || signal.aborted) return;
  const refreshed = await refreshRemoteIndex(pack, client, state.known, {
    workDir: options.workDir,
    minRefreshMs: pack.minRefreshMs,
    signal,
  });
  if (refreshed.kind === 'err') {
    logger.log('warn', 'pack-remote-refresh-failed', `pack ${packId}: ${refreshed.error} (the last index stays)`, {
      packId,
    });
    return;
  }
  const found = refreshed.value;
  if (signal.aborted || found.kind === 'current' || found.kind === 'deferred') return;
  if (found.kind === 'same') {
    // A new version serving the same tools: nothing to rebuild, and no fetch again until the next version.
    state.known = { ...state.known, seenVersion: found.seenVersion, fetchedAt: found.fetchedAt };
    const message = `pack ${packId}: version ${found.seenVersion} serves the same tools; nothing to reload`;
    logger.log('debug', 'pack-remote-index-unchanged', message, { packId, artifactVersion: found.seenVersion });
    return;
  }
  logRefused(logger, packId, pack.url, found.fetched);
  const { index, contentHash } = found.fetched;
  prepareOutputCheck(index);
  state.known = { index, contentHash, seenVersion: found.seenVersion, fetchedAt: found.fetchedAt };
  logger.log('info', 'pack-reloaded', `pack ${packId} reloaded from ${pack.url}`, {
    packId,
    artifactVersion: index.artifactVersion,
    remote: true,
  });
  options.onReindexed?.(index);
}

/** Polls every `pollMs`, one poll at a time; `stop` cancels the timer and waits for a poll in progress. */
function startPolling(
  options: RemotePackHostOptions,
  client: PackServiceClient,
  state: RemoteState,
): { stop(): Promise<void> } {
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> = Promise.resolve();
  const schedule = () => {
    if (stopping.signal.aborted) return;
    timer = setTimeout(() => {
      const signal = AbortSignal.any([stopping.signal, AbortSignal.timeout(POLL_TIMEOUT_MS)]);
      polling = pollOnce(options, client, state, signal)
        .catch((cause: unknown) => {
          const { packId } = state;
          options.logger.log('warn', 'pack-remote-refresh-failed', `pack ${packId}: ${String(cause)}`, { packId });
        })
        .finally(schedule);
    }, options.pack.pollMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await polling.catch(() => undefined);
    },
  };
}

/**
 * A pack served by a remote pack service: its tools read from `/v1/info` and `/v1/index`, `/readyz` and
 * `/v1/info` polled every `pollMs` (a new `artifactVersion` refreshes the index), calls over the protocol
 * client's keep-alive pool with the service's 503s retried within `retryMs`. A connection nothing accepts
 * is answered at once (`pack-unavailable` with `Retry-After`). The server's start waits for the first index.
 */
export async function startRemotePackHost(options: RemotePackHostOptions): Promise<Result<PackHost, string>> {
  const { pack, logger, metrics } = options;
  await mkdir(options.workDir, { recursive: true });
  const replies = options.replies ?? remoteReplyBudget(remoteRepliesSchema.parse({}));
  const client = createPackServiceClient({ url: pack.url, token: pack.token, replies });
  const first = await firstIndex(options, client);
  if (first.kind === 'err') {
    await client.close();
    return err(first.error);
  }
  const packId = first.value.index.packId;
  logRefused(logger, packId, pack.url, first.value);
  if (!first.value.complete) {
    const message = `pack ${packId}: ${pack.url} has no /v1/index; tool schemas are not listed`;
    logger.log('warn', 'pack-remote-index-missing', message, { packId });
  }
  const ready = await remoteIsReady(pack.url, AbortSignal.timeout(POLL_TIMEOUT_MS));
  const { index, contentHash } = first.value;
  prepareOutputCheck(index);
  const known = { index, contentHash, seenVersion: index.artifactVersion, fetchedAt: performance.now() };
  const state: RemoteState = { packId, known, ready };
  metrics?.remoteReady(packId, ready);
  logger.log('info', 'pack-serving', `pack ${packId} is served by ${pack.url} (${index.tools.length} tools)`, {
    packId,
    artifactVersion: index.artifactVersion,
    remote: true,
    ready,
  });
  if (pack.timeoutMs !== undefined) {
    const message = `pack ${packId}: timeoutMs is no longer used; calls without a deadline get the default (120 s)`;
    logger.log('warn', 'pack-remote-timeout-ignored', message, { packId });
  }
  const poller = startPolling(options, client, state);
  // Below routing: the output held to the index's schema, the service's 503s retried within retryMs, then
  // the protocol client.
  const retry = retryLayer({ budgetMs: pack.retryMs, onRetry: () => metrics?.remoteRetry(packId) });
  const outputCheck = remoteOutputCheckLayer(() => state.known.index);
  return ok({
    dir: pack.url,
    get index() {
      return state.known.index;
    },
    call: composePackCall(outputCheck, retry)(clientCaller(client)),
    get serving() {
      return state.ready;
    },
    async close() {
      await poller.stop();
      await client.close();
    },
  });
}
