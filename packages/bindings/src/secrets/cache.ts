import type { Result } from '@kindgi/protocol';
import { LRUCache } from 'lru-cache';
import type { SecretError } from './errors.js';
import type { SecretStore } from './store.js';

/** How long a resolved value is reused: a change made on another server reaches calls within this. */
export const SECRET_CACHE_MS = 2_000;
const MAX_ENTRIES = 10_000;

/**
 * `store` with each (tenant, env, names) answer of `resolve` reused for `ttlMs`, so a tool's every call
 * does not read and decrypt its secrets again; concurrent misses share one read, failures are not kept.
 * A change through this store (put, delete, rotate) forgets every answer at once, so this process's next
 * call sees it; other processes see it within `ttlMs`.
 * @example
 * const secrets = cachedSecretStore(createSecretStore({ rows, keyring }));
 */
export function cachedSecretStore(store: SecretStore, ttlMs = SECRET_CACHE_MS): SecretStore {
  const cache = new LRUCache<string, Promise<Result<Map<string, string>, SecretError>>>({
    max: MAX_ENTRIES,
    ttl: ttlMs,
  });
  // Writes are rare next to calls: forgetting everything is simpler than tracking which answers they touch.
  const forgetting =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await write(...args);
      } finally {
        cache.clear();
      }
    };
  return {
    ...store,
    put: forgetting(store.put),
    delete: forgetting(store.delete),
    rotate: forgetting(store.rotate),
    resolve(tenantId, env, names) {
      const key = JSON.stringify([tenantId, env, names]);
      const hit = cache.get(key);
      if (hit) return hit;
      const pending = store.resolve(tenantId, env, names).then((result) => {
        if (result.kind === 'err') cache.delete(key);
        return result;
      });
      cache.set(key, pending);
      return pending;
    },
  };
}
