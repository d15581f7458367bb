import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { ReadinessCheckResult, ReadinessProbe } from '@kindgi/api';
import type { BlobStorageBinding } from '@kindgi/bindings';
import type { Result } from '@kindgi/protocol';
import type { KindgiDatabase } from '@kindgi/store-sqlite';
import type { PackHost } from '../packs/pack-host.js';

/** What `/readyz` looks at. */
export interface ReadinessTargets {
  database: KindgiDatabase;
  /** PostgreSQL, when the runs and idempotency state live there. */
  sharedState: { query(sql: string): Promise<unknown> } | undefined;
  blobStorage: BlobStorageBinding;
  /** The embedded blob folder, when blobs are kept in `dataDir`. */
  objectsDir: string | undefined;
  /** The object store holding blob bytes (S3), when they live there: one bounded bucket lookup. */
  objectStore?: ((timeoutMs: number) => Promise<Result<true, unknown>>) | undefined;
  hosts: ReadonlyMap<string, PackHost>;
}

/** A store lookup longer than this counts as not ready (well inside `/readyz`'s own 5 s bound). */
const OBJECT_STORE_TIMEOUT_MS = 2_000;
/** Probes within this long of the last lookup reuse its answer, so frequent probes cannot flood the store. */
const OBJECT_STORE_CACHE_MS = 1_000;

/** `check` answered at most once per `ttlMs`; concurrent callers share the lookup in flight. */
function cachedCheck(check: () => Promise<boolean>, ttlMs: number): () => Promise<boolean> {
  let last: { at: number; answer: Promise<boolean> } | undefined;
  return () => {
    const now = Date.now();
    if (last === undefined || now - last.at >= ttlMs) {
      const answer = check().catch(() => false);
      last = { at: now, answer };
      // The window starts when the answer arrives: a slow lookup is not repeated the moment it ends.
      void answer.then(() => {
        if (last?.answer === answer) last.at = Date.now();
      });
    }
    return last.answer;
  };
}

/**
 * `/readyz`: the databases answer a query (the embedded one, and PostgreSQL when the runs and idempotency
 * state live there), blob storage answers a lookup (and, for the embedded folder, the folder is writable),
 * the object store (when blob bytes live in S3) answers a bucket lookup, and every pack is serving (a local
 * child, or a remote service that answers).
 */
export function readinessProbe(targets: ReadinessTargets): ReadinessProbe {
  const { database, sharedState, blobStorage, objectsDir, objectStore, hosts } = targets;
  const objectStoreAnswers =
    objectStore === undefined
      ? undefined
      : cachedCheck(async () => (await objectStore(OBJECT_STORE_TIMEOUT_MS)).kind === 'ok', OBJECT_STORE_CACHE_MS);
  return async () => {
    const checks: Record<string, ReadinessCheckResult> = {};
    try {
      database.prepare('SELECT 1').get();
      if (sharedState !== undefined) await sharedState.query('SELECT 1');
      if (objectsDir !== undefined) await access(objectsDir, constants.W_OK);
      // A lookup of a blob that cannot exist: the binding's own round trip to wherever metadata lives.
      const probe = await blobStorage.head('kindgi-readyz', 'kindgi-readyz');
      if (probe.kind === 'err') throw new Error(probe.error.code);
      checks.storage = { ok: true };
    } catch {
      // The cause (a path, an errno) is for the logs the storage itself writes, not for an unauthenticated probe.
      checks.storage = { ok: false, message: 'the data directory or its database cannot be used' };
    }
    if (objectStoreAnswers !== undefined) {
      // The bucket's name and the store's error stay out of an unauthenticated probe's answer.
      checks.objectStore = (await objectStoreAnswers())
        ? { ok: true }
        : { ok: false, message: 'the object store holding blob bytes does not answer' };
    }
    for (const [packId, host] of hosts) {
      checks[`pack:${packId}`] = host.serving
        ? { ok: true }
        : { ok: false, message: 'the pack service is not serving' };
    }
    return checks;
  };
}
