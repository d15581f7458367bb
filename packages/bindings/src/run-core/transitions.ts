import { err, ok, type Result } from '@kindgi/protocol';
import {
  type RunOutcome,
  type RunRecord,
  type RunStatus,
  type RunStoreError,
  TERMINAL_EVENT_KINDS,
  TERMINAL_RUN_STATUSES,
} from '../runs.js';
import { runAlreadyTerminal, runLeaseLost, runNotFound } from './refusals.js';

/** A stored run as the transitions read it: the columns the SQL adapters select as they are. */
export interface RunRow {
  status: string;
  /** The record's JSON text, without its output. */
  record: string;
  /** The output's JSON text, once the run completed with one. */
  output: string | null;
  /** The `RunJob`'s JSON text. */
  job: string;
  attempts: number;
  lease_owner: string | null;
}

/**
 * What a transition writes. Every write sets the whole state: the lease (cleared unless `lease`), the delay
 * (none unless `delayMs`) and the output (only a finished run has one, and nothing changes a finished run).
 * `journal` is the event kind appended with the record as its data, in the same atomic step.
 */
export interface RunChange {
  /** The record without its output. */
  run: RunRecord;
  attempts: number;
  lease?: { owner: string; ms: number };
  delayMs?: number;
  output?: string | null;
  journal?: string;
}

/** JSON that must round-trip: `undefined` at the top (no data) is stored as null. */
export function runJson(value: unknown): string {
  const text = JSON.stringify(value ?? null);
  if (text === undefined) throw new TypeError('the value cannot be stored as JSON');
  return text;
}

/** The record's JSON text without its output (kept once, apart from the listed record). */
export function recordJson(run: RunRecord): string {
  const { output: _output, ...record } = run;
  return runJson(record);
}

/** A stored record without its output (older SQLite databases kept the output inside it). */
export function recordOf(text: string): RunRecord {
  const { output: _output, ...run } = JSON.parse(text) as RunRecord;
  return run;
}

/** The record `get` and `finish` answer: with its output, when it has one. */
export function withOutput(run: RunRecord, output: string | null | undefined): RunRecord {
  return output === null || output === undefined ? run : { ...run, output: JSON.parse(output) };
}

/** What `enqueue` stores: a `queued` record without an output. */
export function queuedRun(run: RunRecord): RunRecord {
  return { ...recordOf(runJson(run)), status: 'queued' };
}

/**
 * Whether `owner` still holds the run. A lease that ran out does not end it: only the sweep that fails the
 * run (`interruptRun`) does, so an executor that could not reach the store past its lease still lands.
 */
export function holdsLease(row: RunRow, owner: string): boolean {
  return row.status === 'running' && row.lease_owner === owner;
}

/** A claim: `running` under `lease` as its next attempt; the first one sets `startedAt` and journals it. */
export function claimRun(row: RunRow, lease: { owner: string; ms: number }, at: string): RunChange {
  const run: RunRecord = { ...recordOf(row.record), status: 'running', updatedAt: at };
  if (run.startedAt !== undefined) return { run, attempts: row.attempts + 1, lease };
  return { run: { ...run, startedAt: at }, attempts: row.attempts + 1, lease, journal: 'run.started' };
}

/** Back to the queue after `delayMs`, only while `owner` holds the run. */
export function requeueRun(
  row: RunRow | undefined,
  runId: string,
  owner: string,
  delayMs: number,
  at: string,
): Result<RunChange, RunStoreError> {
  if (row === undefined || !holdsLease(row, owner)) return err(runLeaseLost(runId));
  return ok({ run: { ...recordOf(row.record), status: 'queued', updatedAt: at }, attempts: row.attempts, delayMs });
}

/**
 * The terminal outcome, journaled with the record (the output lives only on the run; streams re-read it).
 * With `owner`, only while that owner holds the run; without, for any run not finished yet.
 */
export function finishRun(
  row: RunRow | undefined,
  runId: string,
  outcome: RunOutcome,
  owner: string | undefined,
  at: string,
): Result<RunChange, RunStoreError> {
  if (row === undefined) return err(runNotFound(runId));
  if (owner !== undefined && !holdsLease(row, owner)) return err(runLeaseLost(runId));
  if (owner === undefined && TERMINAL_RUN_STATUSES.has(row.status as RunStatus)) {
    return err(runAlreadyTerminal(withOutput(recordOf(row.record), row.output)));
  }
  const run: RunRecord = { ...recordOf(row.record), status: outcome.status, updatedAt: at, finishedAt: at };
  const output = outcome.output === undefined ? null : runJson(outcome.output);
  if (output !== null) run.outputSize = Buffer.byteLength(output);
  if (outcome.error !== undefined) run.error = outcome.error;
  if (outcome.violations !== undefined) run.violations = outcome.violations;
  return ok({ run, attempts: row.attempts, output, journal: TERMINAL_EVENT_KINDS[outcome.status] });
}

/** An agent run suspended at an approval gate: `waiting`, its lease released, only while `owner` holds it. */
export function suspendRun(
  row: RunRow | undefined,
  runId: string,
  owner: string,
  at: string,
): Result<RunChange, RunStoreError> {
  if (row === undefined || !holdsLease(row, owner)) return err(runLeaseLost(runId));
  const run: RunRecord = { ...recordOf(row.record), status: 'waiting', updatedAt: at };
  return ok({ run, attempts: row.attempts, journal: 'run.waiting' });
}

/** A waiting run whose approval was decided: back in its queue, claimable at once. */
export function resumeRun(row: RunRow, at: string): RunChange | undefined {
  if (row.status !== 'waiting') return undefined;
  const run: RunRecord = { ...recordOf(row.record), status: 'queued', updatedAt: at };
  return { run, attempts: row.attempts, journal: 'run.resumed' };
}

/** A running run whose executor is gone: failed as `run-interrupted` (the id names only refusals, of a missing row). */
export function interruptRun(row: RunRow, message: string, at: string): Result<RunChange, RunStoreError> {
  return finishRun(row, '', { status: 'failed', error: { code: 'run-interrupted', message } }, undefined, at);
}
