import { createHash, randomUUID } from 'node:crypto';
import type { IdempotencyEntry, IdempotencyStore } from '@kindgi/bindings';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors/api-error.js';

/** Options for `idempotencyMiddleware`; the defaults are the published ones. */
export interface IdempotencyOptions {
  store: IdempotencyStore;
  now?: () => number;
  /** How long a stored answer replays. Default 24 h. */
  ttlMs?: number;
  /** How long a hold lasts without renewal. Default 30 s. */
  holdMs?: number;
  /** How often a running request renews its hold. Default 10 s. */
  renewEveryMs?: number;
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` on /v1 mutations (after auth). The key is `${tenantId}|${METHOD}:${path}|${key}`, the
 * body hash sha256 hex of the raw body. Multipart bodies are hashed while they stream, never buffered.
 */
export function idempotencyMiddleware(options: IdempotencyOptions): MiddlewareHandler<AppEnv> {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 24 * 60 * 60 * 1000;
  const holdMs = options.holdMs ?? 30_000;
  const renewEveryMs = options.renewEveryMs ?? 10_000;
  const { store } = options;

  return async (c, next) => {
    const key = c.req.header('idempotency-key');
    if (key === undefined || !MUTATING.has(c.req.method)) return next();
    if (!KEY_SHAPE.test(key)) {
      throw new ApiError('bad-input', 'Idempotency-Key must be 1..255 visible ASCII characters.');
    }
    const principal = c.get('principal');
    const cacheKey = `${principal.tenantId}|${c.req.method}:${c.req.path}|${key}`;
    const body = await hashedBody(c);

    const stored = await reachStore(() => store.get(cacheKey));
    if (stored !== null) return replay(stored, await body.finish());

    const holder = randomUUID();
    let renewTimer: NodeJS.Timeout | undefined;
    if (store.holds) {
      const holds = store.holds;
      const outcome = await reachStore(() =>
        holds.hold(cacheKey, { holder, bodyHash: body.early ?? '', expiresAt: now() + holdMs }),
      );
      if (outcome.kind === 'stored') return replay(outcome.entry, await body.finish());
      if (outcome.kind === 'in-flight') {
        throw new ApiError(
          'idempotency-key-in-flight',
          'A request with this Idempotency-Key is still running; retry later.',
          undefined,
          { 'retry-after': '5' },
        );
      }
      renewTimer = setInterval(() => {
        holds.renew(cacheKey, holder, now() + holdMs).catch(() => undefined);
      }, renewEveryMs);
      renewTimer.unref();
    }
    try {
      await next();
      if (c.res.status < 400) {
        const entry: IdempotencyEntry = {
          bodyHash: await body.finish(),
          status: c.res.status,
          contentType: c.res.headers.get('content-type') ?? 'application/json',
          bodyText: await c.res.clone().text(),
          expiresAt: now() + ttlMs,
        };
        // The work is done: a store that fails now leaves the answer unrecorded (a retry runs again),
        // which beats failing a request that succeeded.
        await store.set(cacheKey, entry).catch(() => undefined);
      }
    } finally {
      if (renewTimer) clearInterval(renewTimer);
      await store.holds?.release(cacheKey, holder).catch(() => undefined);
    }
  };
}

/** A store that cannot be reached fails the request as 503 `storage-unavailable`, never 500. */
async function reachStore<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch {
    throw new ApiError('storage-unavailable', 'The idempotency store failed; retry later.');
  }
}

function replay(entry: IdempotencyEntry, bodyHash: string): Response {
  if (entry.bodyHash !== bodyHash) {
    throw new ApiError(
      'idempotency-key-body-mismatch',
      'This Idempotency-Key was already used with a different request body.',
    );
  }
  return new Response(entry.bodyText, {
    status: entry.status,
    headers: { 'content-type': entry.contentType, 'x-idempotent-replay': 'true' },
  });
}

interface HashedBody {
  /** The hash when the body was small enough to read up front (JSON), else undefined. */
  early: string | undefined;
  /** Drains whatever the handler left unread and returns the hash of the whole body. */
  finish(): Promise<string>;
}

async function hashedBody(c: Context<AppEnv>): Promise<HashedBody> {
  const raw = c.req.raw;
  const streaming = /^multipart\//i.test(c.req.header('content-type') ?? '');
  if (!streaming || raw.body === null) {
    // Bounded by the JSON body limit; Hono caches the text for the validator to parse.
    const text = raw.body === null ? '' : await c.req.text();
    const hash = createHash('sha256').update(text).digest('hex');
    return { early: hash, finish: async () => hash };
  }
  const hash = createHash('sha256');
  let digest: string | undefined;
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      hash.update(chunk);
      controller.enqueue(chunk);
    },
  });
  const tapped = raw.body.pipeThrough(tap);
  c.req.raw = new Request(raw.url, {
    method: raw.method,
    headers: raw.headers,
    body: tapped,
    signal: raw.signal,
    duplex: 'half',
  } as RequestInit);
  return {
    early: undefined,
    async finish() {
      if (digest !== undefined) return digest;
      const body = c.req.raw.body;
      if (body !== null && !body.locked) {
        const reader = body.getReader();
        while (!(await reader.read()).done) {}
      }
      digest = hash.digest('hex');
      return digest;
    },
  };
}
