import type { IdempotencyEntry, IdempotencyHoldOutcome, IdempotencyStore } from '@kindgi/bindings';

interface Hold {
  holder: string;
  bodyHash: string;
  expiresAt: number;
}

/**
 * An `IdempotencyStore` in two Maps, with holds. Entries and holds expire lazily when read. Correct for
 * one process (dev, tests); a deployment with several instances or restarts needs a shared store.
 */
export function createInMemoryIdempotencyStore(options: { now?: () => number } = {}): IdempotencyStore {
  const now = options.now ?? Date.now;
  const entries = new Map<string, IdempotencyEntry>();
  const holds = new Map<string, Hold>();

  const liveEntry = (key: string): IdempotencyEntry | null => {
    const entry = entries.get(key);
    if (entry === undefined) return null;
    if (entry.expiresAt <= now()) {
      entries.delete(key);
      return null;
    }
    return entry;
  };
  const liveHold = (key: string): Hold | null => {
    const hold = holds.get(key);
    if (hold === undefined) return null;
    if (hold.expiresAt <= now()) {
      holds.delete(key);
      return null;
    }
    return hold;
  };

  return {
    async get(key) {
      return liveEntry(key);
    },
    async set(key, entry) {
      if (liveEntry(key) === null) entries.set(key, { ...entry });
    },
    holds: {
      async hold(key, claim): Promise<IdempotencyHoldOutcome> {
        const entry = liveEntry(key);
        if (entry !== null) return { kind: 'stored', entry };
        const current = liveHold(key);
        if (current !== null && current.holder !== claim.holder)
          return { kind: 'in-flight', bodyHash: current.bodyHash };
        holds.set(key, { ...claim });
        return { kind: 'held' };
      },
      async renew(key, holder, expiresAt) {
        const current = liveHold(key);
        if (current !== null && current.holder === holder) current.expiresAt = expiresAt;
      },
      async release(key, holder) {
        const current = holds.get(key);
        if (current !== undefined && current.holder === holder) holds.delete(key);
      },
    },
  };
}
