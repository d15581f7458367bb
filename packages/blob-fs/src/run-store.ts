import type { RunEvent, RunRecord, RunStore, RunStoreError } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import { type DatabaseSource, type KindgiDatabase, resolveDatabase } from './database.js';

/** A `RunStore` whose runs and journals survive restarts; `close()` closes a database it opened. */
export interface SqliteRunStore extends RunStore {
  readonly database: KindgiDatabase;
  /**
   * Fails every run still `queued` or `running` as `run-interrupted`, journaling `run.failed` so stream
   * followers end. Call it when a process takes over the data directory: the process that was executing
   * those runs is gone (the directory is locked to one process), so none will ever finish.
   */
  failInterruptedRuns(message?: string): Result<RunRecord[], RunStoreError>;
  close(): void;
}

class RunStoreFailure extends Error {
  constructor(readonly error: RunStoreError) {
    super(error.message);
  }
}

function attempt<T>(run: () => T): Result<T, RunStoreError> {
  try {
    return ok(run());
  } catch (cause) {
    if (cause instanceof RunStoreFailure) return err(cause.error);
    const message = cause instanceof Error ? cause.message : String(cause);
    return err({ code: 'run-store-error', message: `run store failed: ${message}`, cause });
  }
}

function notFound(runId: string): RunStoreFailure {
  return new RunStoreFailure({ code: 'run-not-found', message: `run ${runId} does not exist` });
}

/** JSON that must round-trip: `undefined` at the top (no data) is stored as null. */
function toJson(value: unknown): string {
  const text = JSON.stringify(value ?? null);
  if (text === undefined) throw new TypeError('the value cannot be stored as JSON');
  return text;
}

function encodeCursor(seq: number): string {
  return Buffer.from(JSON.stringify({ v: 1, s: seq }), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { v?: unknown; s?: unknown };
    if (parsed.v === 1 && Number.isSafeInteger(parsed.s)) return parsed.s as number;
  } catch {
    // Falls through to the typed error below.
  }
  throw new RunStoreFailure({ code: 'run-store-error', message: 'the runs cursor is not valid' });
}

/**
 * A durable `RunStore` on the shared Kindgi database. Runs list newest first by insertion; each run's events
 * get consecutive sequence numbers from 1, assigned inside a write transaction so concurrent appends never
 * share one.
 */
export function createSqliteRunStore(source: DatabaseSource): SqliteRunStore {
  const { db, owned } = resolveDatabase(source);
  const insert = db.prepare(
    'INSERT INTO runs (tenant_id, run_id, tool_id, status, record) VALUES (@tenantId, @runId, @toolId, @status, @record)',
  );
  const select = db.prepare<[string, string], { record: string; last_event: number }>(
    'SELECT record, last_event FROM runs WHERE tenant_id = ? AND run_id = ?',
  );
  const updateRecord = db.prepare<[string, string, string, string]>(
    'UPDATE runs SET status = ?, record = ? WHERE tenant_id = ? AND run_id = ?',
  );
  const bumpEvent = db.prepare<[number, string, string]>(
    'UPDATE runs SET last_event = ? WHERE tenant_id = ? AND run_id = ?',
  );
  const insertEvent = db.prepare<[string, string, number, string, string, string]>(
    'INSERT INTO run_events (tenant_id, run_id, sequence, kind, data, at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const selectEvents = db.prepare<
    [string, string, number],
    { sequence: number; kind: string; data: string; at: string }
  >(
    'SELECT sequence, kind, data, at FROM run_events WHERE tenant_id = ? AND run_id = ? AND sequence > ? ORDER BY sequence',
  );

  const create = db.transaction((run: RunRecord) => {
    if (select.get(run.tenantId, run.runId) !== undefined) {
      throw new RunStoreFailure({ code: 'run-already-exists', message: `run ${run.runId} already exists` });
    }
    insert.run({
      tenantId: run.tenantId,
      runId: run.runId,
      toolId: run.toolId,
      status: run.status,
      record: toJson(run),
    });
    return JSON.parse(toJson(run)) as RunRecord;
  });
  const update = db.transaction((tenantId: string, runId: string, patch: Parameters<RunStore['update']>[2]) => {
    const row = select.get(tenantId, runId);
    if (row === undefined) throw notFound(runId);
    const next: RunRecord = { ...(JSON.parse(row.record) as RunRecord), ...patch, updatedAt: new Date().toISOString() };
    updateRecord.run(next.status, toJson(next), tenantId, runId);
    return JSON.parse(toJson(next)) as RunRecord;
  });
  const append = db.transaction((tenantId: string, runId: string, event: { kind: string; data: unknown }) => {
    const row = select.get(tenantId, runId);
    if (row === undefined) throw notFound(runId);
    const stored: RunEvent = {
      runId,
      sequence: row.last_event + 1,
      kind: event.kind,
      data: JSON.parse(toJson(event.data)),
      at: new Date().toISOString(),
    };
    insertEvent.run(tenantId, runId, stored.sequence, stored.kind, toJson(event.data), stored.at);
    bumpEvent.run(stored.sequence, tenantId, runId);
    return stored;
  });

  const selectActive = db.prepare<[], { tenant_id: string; run_id: string }>(
    "SELECT tenant_id, run_id FROM runs WHERE status IN ('queued', 'running') ORDER BY seq",
  );
  const failInterrupted = db.transaction((message: string) =>
    selectActive.all().map(({ tenant_id: tenantId, run_id: runId }) => {
      const at = new Date().toISOString();
      const failed = update(tenantId, runId, {
        status: 'failed',
        finishedAt: at,
        error: { code: 'run-interrupted', message },
      });
      append(tenantId, runId, { kind: 'run.failed', data: failed });
      return failed;
    }),
  );

  return {
    database: db,
    failInterruptedRuns(message = 'The server stopped while the run was running; it may have partly run.') {
      return attempt(() => failInterrupted.immediate(message));
    },
    close() {
      if (owned) db.close();
    },
    async create(run) {
      return attempt(() => create.immediate(run));
    },
    async get(tenantId, runId) {
      return attempt(() => {
        const row = select.get(tenantId, runId);
        return row === undefined ? null : (JSON.parse(row.record) as RunRecord);
      });
    },
    async update(tenantId, runId, patch) {
      return attempt(() => update.immediate(tenantId, runId, patch));
    },
    async list(tenantId, filter, cursor, limit) {
      return attempt(() => {
        const clauses = ['tenant_id = ?', 'seq < ?'];
        const params: unknown[] = [tenantId, cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor(cursor)];
        if (filter.status !== undefined) {
          clauses.push('status = ?');
          params.push(filter.status);
        }
        if (filter.toolId !== undefined) {
          clauses.push('tool_id = ?');
          params.push(filter.toolId);
        }
        const size = Math.max(1, Math.min(1000, Math.floor(Number.isFinite(limit) ? limit : 100)));
        params.push(size + 1);
        const sql = `SELECT seq, record FROM runs WHERE ${clauses.join(' AND ')} ORDER BY seq DESC LIMIT ?`;
        const rows = db.prepare<unknown[], { seq: number; record: string }>(sql).all(...params);
        const page = rows.slice(0, size);
        const data = page.map((row) => JSON.parse(row.record) as RunRecord);
        const last = page.at(-1);
        return rows.length > size && last !== undefined ? { data, nextCursor: encodeCursor(last.seq) } : { data };
      });
    },
    async appendEvent(tenantId, runId, event) {
      return attempt(() => append.immediate(tenantId, runId, event));
    },
    async listEvents(tenantId, runId, afterSequence) {
      return attempt(() =>
        selectEvents.all(tenantId, runId, afterSequence).map((row) => ({
          runId,
          sequence: row.sequence,
          kind: row.kind,
          data: JSON.parse(row.data) as unknown,
          at: row.at,
        })),
      );
    },
  };
}
