import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { ReadinessCheckResult, ReadinessProbe } from '@kindgi/api';
import type { BlobStorageBinding } from '@kindgi/bindings';
import type { KindgiDatabase } from '@kindgi/blob-fs';
import type { PackHost } from '../pack-host.js';

/** What `/readyz` looks at. */
export interface ReadinessTargets {
  database: KindgiDatabase;
  /** PostgreSQL, when the runs and idempotency state live there. */
  sharedState: { query(sql: string): Promise<unknown> } | undefined;
  blobStorage: BlobStorageBinding;
  /** The embedded blob folder, when blobs are kept in `dataDir`. */
  objectsDir: string | undefined;
  hosts: ReadonlyMap<string, PackHost>;
}

/**
 * `/readyz`: the databases answer a query (the embedded one, and PostgreSQL when the runs and idempotency
 * state live there), blob storage answers a lookup (and, for the embedded folder, the folder is writable),
 * and every pack is serving (a local child, or a remote service that answers).
 */
export function readinessProbe(targets: ReadinessTargets): ReadinessProbe {
  const { database, sharedState, blobStorage, objectsDir, hosts } = targets;
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
    for (const [packId, host] of hosts) {
      checks[`pack:${packId}`] = host.serving
        ? { ok: true }
        : { ok: false, message: 'the pack service is not serving' };
    }
    return checks;
  };
}
