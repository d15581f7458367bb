import type { RunEvent, RunRecord, RunStore } from '@kindgi/bindings';
import { err, ok } from '@kindgi/protocol';

/** A `RunStore` in Maps: runs list newest first (by `createdAt`, then `runId`); the cursor is a run id. */
export function createInMemoryRunStore(options: { now?: () => Date } = {}): RunStore {
  const now = options.now ?? (() => new Date());
  const runs = new Map<string, RunRecord>();
  const journals = new Map<string, RunEvent[]>();
  const keyOf = (tenantId: string, runId: string) => `${tenantId}\u0000${runId}`;
  const notFound = (runId: string) => err({ code: 'run-not-found' as const, message: `No run '${runId}'.` });

  return {
    async create(run) {
      const key = keyOf(run.tenantId, run.runId);
      if (runs.has(key)) return err({ code: 'run-already-exists', message: `Run '${run.runId}' exists.` });
      runs.set(key, structuredClone(run));
      journals.set(key, []);
      return ok(structuredClone(run));
    },
    async get(tenantId, runId) {
      const run = runs.get(keyOf(tenantId, runId));
      return ok(run === undefined ? null : structuredClone(run));
    },
    async update(tenantId, runId, patch) {
      const key = keyOf(tenantId, runId);
      const run = runs.get(key);
      if (run === undefined) return notFound(runId);
      const next: RunRecord = { ...run, ...structuredClone(patch), updatedAt: now().toISOString() };
      runs.set(key, next);
      return ok(structuredClone(next));
    },
    async list(tenantId, filter, cursor, limit) {
      const all = [...runs.values()]
        .filter((run) => run.tenantId === tenantId)
        .filter((run) => filter.status === undefined || run.status === filter.status)
        .filter((run) => filter.toolId === undefined || run.toolId === filter.toolId)
        .sort((a, b) => (a.createdAt === b.createdAt ? compare(b.runId, a.runId) : compare(b.createdAt, a.createdAt)));
      let start = 0;
      if (cursor !== undefined) {
        const index = all.findIndex((run) => run.runId === cursor);
        if (index < 0) return err({ code: 'run-store-error', message: 'Unknown cursor.' });
        start = index + 1;
      }
      const data = all.slice(start, start + limit);
      const last = data[data.length - 1];
      const more = start + data.length < all.length;
      return ok(
        more && last ? { data: structuredClone(data), nextCursor: last.runId } : { data: structuredClone(data) },
      );
    },
    async appendEvent(tenantId, runId, event) {
      const journal = journals.get(keyOf(tenantId, runId));
      if (journal === undefined) return notFound(runId);
      const entry: RunEvent = {
        runId,
        sequence: journal.length + 1,
        kind: event.kind,
        data: structuredClone(event.data),
        at: now().toISOString(),
      };
      journal.push(entry);
      return ok(structuredClone(entry));
    },
    async listEvents(tenantId, runId, afterSequence) {
      const journal = journals.get(keyOf(tenantId, runId));
      if (journal === undefined) return notFound(runId);
      return ok(structuredClone(journal.filter((event) => event.sequence > afterSequence)));
    },
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
