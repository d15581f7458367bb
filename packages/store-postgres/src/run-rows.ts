import {
  type RunEvent,
  type RunOutcome,
  type RunRecord,
  type RunStoreError,
  TERMINAL_EVENT_KINDS,
} from '@kindgi/bindings';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import type pg from 'pg';
import { RUN_EVENTS_CHANNEL } from './notify.js';
import { NOW_MS, prepared } from './tx.js';

// The row shape and the steps every transition of the Postgres run store is made of.

export class Failure extends Error {
  constructor(readonly error: RunStoreError) {
    super(error.message);
  }
}
export const fail = (error: RunStoreError): never => {
  throw new Failure(error);
};
export const notFound = (runId: string): never =>
  fail({ code: 'run-not-found', message: `run ${runId} does not exist` });
export const leaseLost = (runId: string): never =>
  fail({ code: 'run-lease-lost', message: `the lease on run ${runId} is lost` });

export async function attempt<T>(work: () => Promise<T>): Promise<Result<T, RunStoreError>> {
  try {
    return ok(await work());
  } catch (cause) {
    if (cause instanceof Failure) return err(cause.error);
    const message = messageOf(cause);
    return err({ code: 'run-store-error', message: `run store failed: ${message}`, cause });
  }
}

export interface RunRow {
  seq: string;
  tenant_id: string;
  run_id: string;
  status: string;
  record: string;
  output: string | null;
  job: string;
  attempts: number;
  lease_owner: string | null;
  lease_live: boolean;
}

export const ROW = `seq, tenant_id, run_id, status, record, output, job, attempts, lease_owner,
  COALESCE(lease_expires_at > ${NOW_MS}, false) AS lease_live`;

export function listed(record: string): RunRecord {
  const { output: _output, ...run } = JSON.parse(record) as RunRecord;
  return run;
}

export function full(row: RunRow): RunRecord {
  const run = listed(row.record);
  if (row.output !== null) run.output = JSON.parse(row.output);
  return run;
}

export function toJson(value: unknown): string {
  const text = JSON.stringify(value ?? null);
  if (text === undefined) throw new TypeError('the value cannot be stored as JSON');
  return text;
}

export const holds = (row: RunRow, owner: string) =>
  row.status === 'running' && row.lease_owner === owner && row.lease_live;

export async function lockRow(client: pg.PoolClient, tenantId: string, runId: string): Promise<RunRow> {
  const found = await client.query<RunRow>({
    ...prepared(`SELECT ${ROW} FROM runs WHERE tenant_id = $1 AND run_id = $2 FOR UPDATE`),
    values: [tenantId, runId],
  });
  return found.rows[0] ?? notFound(runId);
}

const APPEND = `WITH bumped AS (
    UPDATE runs SET last_event = last_event + 1 WHERE tenant_id = $1 AND run_id = $2 RETURNING last_event
  ), inserted AS (
    INSERT INTO run_events (tenant_id, run_id, sequence, kind, data, at)
    SELECT $1, $2, last_event, $3, $4, $5 FROM bumped RETURNING sequence
  )
  SELECT sequence, pg_notify($6, $7) FROM inserted`;

/** Appends an event with the run's next sequence number and announces it, in one round trip. */
export async function append(
  client: pg.PoolClient,
  tenantId: string,
  runId: string,
  kind: string,
  data: unknown,
): Promise<RunEvent> {
  const text = toJson(data);
  const at = new Date().toISOString();
  const inserted = await client.query<{ sequence: number }>({
    ...prepared(APPEND),
    values: [tenantId, runId, kind, text, at, RUN_EVENTS_CHANNEL, JSON.stringify([tenantId, runId])],
  });
  const sequence = inserted.rows[0]?.sequence ?? notFound(runId);
  return { runId, sequence, kind, data: JSON.parse(text), at };
}

export async function saveRecord(
  client: pg.PoolClient,
  run: RunRecord,
  set = '',
  params: unknown[] = [],
): Promise<void> {
  const { output: _output, ...record } = run;
  const extra = set === '' ? '' : `, ${set}`;
  await client.query({
    ...prepared(`UPDATE runs SET status = $3, record = $4${extra} WHERE tenant_id = $1 AND run_id = $2`),
    values: [run.tenantId, run.runId, run.status, toJson(record), ...params],
  });
}

/**
 * Saves the run's record (and `set`, whose placeholders start at $9) and appends `kind` with the record as
 * its data, announcing it: one statement for a transition and its journal entry.
 */
export async function saveAndAppend(
  client: pg.PoolClient,
  run: RunRecord,
  kind: string,
  set = '',
  params: unknown[] = [],
): Promise<RunEvent> {
  const { output: _output, ...record } = run;
  const text = toJson(record);
  const at = new Date().toISOString();
  const extra = set === '' ? '' : `, ${set}`;
  const inserted = await client.query<{ sequence: number }>({
    ...prepared(`WITH saved AS (
        UPDATE runs SET status = $3, record = $4, last_event = last_event + 1${extra}
        WHERE tenant_id = $1 AND run_id = $2 RETURNING last_event
      ), inserted AS (
        INSERT INTO run_events (tenant_id, run_id, sequence, kind, data, at)
        SELECT $1, $2, last_event, $5, $4, $6 FROM saved RETURNING sequence
      )
      SELECT sequence, pg_notify($7, $8) FROM inserted`),
    values: [
      run.tenantId,
      run.runId,
      run.status,
      text,
      kind,
      at,
      RUN_EVENTS_CHANNEL,
      JSON.stringify([run.tenantId, run.runId]),
      ...params,
    ],
  });
  const sequence = inserted.rows[0]?.sequence ?? notFound(run.runId);
  return { runId: run.runId, sequence, kind, data: JSON.parse(text), at };
}

export async function finishRow(client: pg.PoolClient, row: RunRow, outcome: RunOutcome): Promise<RunRecord> {
  const at = new Date().toISOString();
  const run: RunRecord = { ...listed(row.record), status: outcome.status, updatedAt: at, finishedAt: at };
  const output = outcome.output === undefined ? null : toJson(outcome.output);
  if (output !== null) run.outputSize = Buffer.byteLength(output);
  if (outcome.error !== undefined) run.error = outcome.error;
  if (outcome.violations !== undefined) run.violations = outcome.violations;
  // The journal carries the record once; the output lives only on the run (streams re-read it).
  await saveAndAppend(
    client,
    run,
    TERMINAL_EVENT_KINDS[outcome.status],
    'output = $9, output_size = $10, lease_owner = NULL, lease_expires_at = NULL',
    [output, run.outputSize ?? null],
  );
  return output === null ? run : { ...run, output: JSON.parse(output) };
}
