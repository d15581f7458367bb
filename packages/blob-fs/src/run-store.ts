import {
  type ClaimedRun,
  type RunEvent,
  type RunJob,
  type RunOutcome,
  type RunRecord,
  type RunStore,
  type RunStoreError,
  TERMINAL_EVENT_KINDS,
  TERMINAL_RUN_STATUSES,
} from '@kindgi/bindings';
import type { Result } from '@kindgi/protocol';
import { type DatabaseSource, type KindgiDatabase, resolveDatabase } from './database.js';
import {
  attempt,
  decodeCursor,
  encodeCursor,
  fail,
  full,
  leaseLost,
  listed,
  notFound,
  type RunRow,
  toJson,
} from './run-rows.js';

/** A `RunStore` whose runs, queue and journals survive restarts; `close()` closes a database it opened. */
export interface SqliteRunStore extends RunStore {
  readonly database: KindgiDatabase;
  /**
   * Fails every run still `running` as `run-interrupted`, journaling `run.failed` so stream followers end.
   * Call it when a process takes over the data directory: the process that held those leases is gone (the
   * directory is locked to one process), so none will ever finish. Queued runs stay queued.
   */
  failInterruptedRuns(message?: string): Result<RunRecord[], RunStoreError>;
  close(): void;
}

/**
 * A durable `RunStore` on the shared Kindgi database. Runs list newest first by insertion; each run's events
 * get consecutive sequence numbers from 1. Every transition runs in an immediate transaction, so a run is
 * claimed once and its terminal event journaled with its status. One process uses the database at a time, so
 * watchers are notified in process.
 */
export function createSqliteRunStore(source: DatabaseSource, now: () => number = Date.now): SqliteRunStore {
  const { db, owned } = resolveDatabase(source);
  db.exec("CREATE INDEX IF NOT EXISTS runs_queue ON runs (pack_id, seq) WHERE status = 'queued'");
  const watchers = new Map<string, Set<() => void>>();
  const queueWatchers = new Set<() => void>();
  const keyOf = (tenantId: string, runId: string) => `${tenantId}\u0000${runId}`;
  const changed = (tenantId: string, runId: string) => {
    for (const listener of watchers.get(keyOf(tenantId, runId)) ?? []) listener();
  };
  const queued = () => {
    for (const listener of queueWatchers) listener();
  };

  const select = db.prepare<[string, string], RunRow>('SELECT * FROM runs WHERE tenant_id = ? AND run_id = ?');
  const insert = db.prepare(
    `INSERT INTO runs (tenant_id, run_id, tool_id, status, record, pack_id, job)
     VALUES (@tenantId, @runId, @toolId, 'queued', @record, @packId, @job)`,
  );
  const countQueued = db.prepare<[string], { n: number }>(
    "SELECT count(*) AS n FROM runs WHERE pack_id = ? AND status = 'queued'",
  );
  const write = db.prepare(
    `UPDATE runs SET status = @status, record = @record, output = @output, attempts = @attempts,
       available_at = @availableAt, lease_owner = @leaseOwner, lease_expires_at = @leaseExpiresAt
     WHERE tenant_id = @tenantId AND run_id = @runId`,
  );
  const insertEvent = db.prepare<[string, string, number, string, string, string]>(
    'INSERT INTO run_events (tenant_id, run_id, sequence, kind, data, at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const bumpEvent = db.prepare<[number, string, string]>(
    'UPDATE runs SET last_event = ? WHERE tenant_id = ? AND run_id = ?',
  );
  const selectEvents = db.prepare<
    [string, string, number],
    { sequence: number; kind: string; data: string; at: string }
  >(
    'SELECT sequence, kind, data, at FROM run_events WHERE tenant_id = ? AND run_id = ? AND sequence > ? ORDER BY sequence',
  );
  const selectExpired = db.prepare<[number], RunRow & { tenant_id: string; run_id: string }>(
    "SELECT * FROM runs WHERE status = 'running' AND lease_expires_at <= ? ORDER BY seq",
  );
  const selectRunning = db.prepare<[], RunRow & { tenant_id: string; run_id: string }>(
    "SELECT * FROM runs WHERE status = 'running' ORDER BY seq",
  );

  const save = (
    run: RunRecord,
    row: RunRow,
    fields: Partial<{
      output: string | null;
      attempts: number;
      availableAt: number;
      leaseOwner: string | null;
      leaseExpiresAt: number | null;
    }>,
  ) => {
    const { output: _output, ...record } = run;
    write.run({
      tenantId: run.tenantId,
      runId: run.runId,
      status: run.status,
      record: toJson(record),
      output: fields.output !== undefined ? fields.output : row.output,
      attempts: fields.attempts ?? row.attempts,
      availableAt: fields.availableAt ?? 0,
      leaseOwner: fields.leaseOwner !== undefined ? fields.leaseOwner : row.lease_owner,
      leaseExpiresAt: fields.leaseExpiresAt !== undefined ? fields.leaseExpiresAt : row.lease_expires_at,
    });
  };
  const append = (tenantId: string, runId: string, kind: string, data: unknown): RunEvent => {
    const row = select.get(tenantId, runId) ?? notFound(runId);
    const event: RunEvent = {
      runId,
      sequence: row.last_event + 1,
      kind,
      data: JSON.parse(toJson(data)),
      at: new Date(now()).toISOString(),
    };
    insertEvent.run(tenantId, runId, event.sequence, kind, toJson(data), event.at);
    bumpEvent.run(event.sequence, tenantId, runId);
    return event;
  };
  const holds = (row: RunRow | undefined, owner: string): row is RunRow =>
    row !== undefined && row.status === 'running' && row.lease_owner === owner && (row.lease_expires_at ?? 0) > now();
  const finishRow = (row: RunRow, outcome: RunOutcome): RunRecord => {
    const at = new Date(now()).toISOString();
    const run: RunRecord = { ...listed(row), status: outcome.status, updatedAt: at, finishedAt: at };
    let output: string | null = null;
    if (outcome.output !== undefined) {
      output = toJson(outcome.output);
      run.outputSize = Buffer.byteLength(output);
    }
    if (outcome.error !== undefined) run.error = outcome.error;
    if (outcome.violations !== undefined) run.violations = outcome.violations;
    save(run, row, { output, leaseOwner: null, leaseExpiresAt: null });
    // The journal carries the record once; the output lives only on the run (streams re-read it).
    append(run.tenantId, run.runId, TERMINAL_EVENT_KINDS[outcome.status], run);
    return output === null ? run : { ...run, output: JSON.parse(output) };
  };

  const enqueue = db.transaction((run: RunRecord, job: RunJob, maxQueued: number) => {
    if (select.get(run.tenantId, run.runId) !== undefined)
      fail({ code: 'run-already-exists', message: `run ${run.runId} already exists` });
    if ((countQueued.get(job.packId)?.n ?? 0) >= maxQueued)
      fail({ code: 'run-queue-full', message: `the queue of pack ${job.packId} is full` });
    const { output: _output, ...record } = { ...run, status: 'queued' as const };
    insert.run({
      tenantId: run.tenantId,
      runId: run.runId,
      toolId: run.toolId,
      record: toJson(record),
      packId: job.packId,
      job: toJson(job),
    });
    return record as RunRecord;
  });
  const claim = db.transaction((owner: string, leaseMs: number, busyPacks: readonly string[]): ClaimedRun | null => {
    const at = now();
    const busy = busyPacks.length === 0 ? '' : ` AND pack_id NOT IN (${busyPacks.map(() => '?').join(', ')})`;
    const found = db
      .prepare<unknown[], RunRow & { tenant_id: string; run_id: string }>(
        `SELECT * FROM runs WHERE status = 'queued' AND available_at <= ?${busy} ORDER BY seq LIMIT 1`,
      )
      .get(at, ...busyPacks);
    if (found === undefined) return null;
    const iso = new Date(at).toISOString();
    const run: RunRecord = { ...listed(found), status: 'running', updatedAt: iso };
    const first = run.startedAt === undefined;
    if (first) run.startedAt = iso;
    save(run, found, { attempts: found.attempts + 1, leaseOwner: owner, leaseExpiresAt: at + leaseMs });
    if (first) append(run.tenantId, run.runId, 'run.started', run);
    return { run, job: JSON.parse(found.job) as RunJob, owner, attempt: found.attempts + 1 };
  });
  const finish = db.transaction((tenantId: string, runId: string, outcome: RunOutcome, owner: string | undefined) => {
    const row = select.get(tenantId, runId) ?? notFound(runId);
    if (owner !== undefined && !holds(row, owner)) leaseLost(runId);
    if (owner === undefined && TERMINAL_RUN_STATUSES.has(row.status as RunRecord['status'])) {
      fail({ code: 'run-already-terminal', message: `run ${runId} has finished`, run: full(row) });
    }
    return finishRow(row, outcome);
  });
  const failRows = (rows: RunRow[], message: string) =>
    rows.map((row) => finishRow(row, { status: 'failed', error: { code: 'run-interrupted', message } }));
  const expire = db.transaction((message: string) => failRows(selectExpired.all(now()), message));
  const failInterrupted = db.transaction((message: string) => failRows(selectRunning.all(), message));
  const notifyAll = (runs: RunRecord[]) => {
    for (const run of runs) changed(run.tenantId, run.runId);
    return runs;
  };

  return {
    database: db,
    failInterruptedRuns(message = 'The server stopped while the run was running; it may have partly run.') {
      return attempt(() => notifyAll(failInterrupted.immediate(message)));
    },
    close() {
      if (owned) db.close();
    },
    async enqueue(run, job, { maxQueued }) {
      const result = attempt(() => enqueue.immediate(run, job, maxQueued));
      if (result.kind === 'ok') queued();
      return result;
    },
    async get(tenantId, runId) {
      return attempt(() => {
        const row = select.get(tenantId, runId);
        return row === undefined ? null : full(row);
      });
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
        const last = page.at(-1);
        const data = page.map(listed);
        return rows.length > size && last !== undefined ? { data, nextCursor: encodeCursor(last.seq) } : { data };
      });
    },
    async claim({ owner, leaseMs, busyPacks }) {
      const result = attempt(() => claim.immediate(owner, leaseMs, busyPacks));
      if (result.kind === 'ok' && result.value !== null) changed(result.value.run.tenantId, result.value.run.runId);
      return result;
    },
    async heartbeat(tenantId, runId, owner, leaseMs) {
      return attempt(() => {
        const row = select.get(tenantId, runId);
        if (!holds(row, owner)) return false;
        db.prepare('UPDATE runs SET lease_expires_at = ? WHERE tenant_id = ? AND run_id = ?').run(
          now() + leaseMs,
          tenantId,
          runId,
        );
        return true;
      });
    },
    async requeue(tenantId, runId, owner, delayMs) {
      const result = attempt(() =>
        db
          .transaction(() => {
            const row = select.get(tenantId, runId);
            if (!holds(row, owner)) return leaseLost(runId);
            const run: RunRecord = { ...listed(row), status: 'queued', updatedAt: new Date(now()).toISOString() };
            save(run, row, { availableAt: now() + delayMs, leaseOwner: null, leaseExpiresAt: null });
          })
          .immediate(),
      );
      if (result.kind === 'ok') {
        changed(tenantId, runId);
        queued();
      }
      return result;
    },
    async finish(tenantId, runId, outcome, options = {}) {
      const result = attempt(() => finish.immediate(tenantId, runId, outcome, options.owner));
      if (result.kind === 'ok') changed(tenantId, runId);
      return result;
    },
    async expireLeases(message) {
      return attempt(() => notifyAll(expire.immediate(message)));
    },
    async appendEvent(tenantId, runId, event) {
      const result = attempt(() => db.transaction(() => append(tenantId, runId, event.kind, event.data)).immediate());
      if (result.kind === 'ok') changed(tenantId, runId);
      return result;
    },
    async listEvents(tenantId, runId, afterSequence) {
      return attempt(() => {
        if (select.get(tenantId, runId) === undefined) notFound(runId);
        return selectEvents.all(tenantId, runId, afterSequence).map((row) => ({
          runId,
          sequence: row.sequence,
          kind: row.kind,
          data: JSON.parse(row.data) as unknown,
          at: row.at,
        }));
      });
    },
    watch(tenantId, runId, onChange) {
      const key = keyOf(tenantId, runId);
      const set = watchers.get(key) ?? new Set();
      watchers.set(key, set);
      set.add(onChange);
      return () => {
        set.delete(onChange);
        if (set.size === 0) watchers.delete(key);
      };
    },
    watchQueue(onQueued) {
      queueWatchers.add(onQueued);
      return () => queueWatchers.delete(onQueued);
    },
  };
}
