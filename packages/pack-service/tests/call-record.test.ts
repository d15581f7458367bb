import { describe, expect, it } from 'vitest';
import { createPackLog } from '../src/log/log.js';
import { type CallIds, type CallLogDeps, logCall, type Target } from '../src/service/call-log.js';
import type { CallTrace } from '../src/service/trace.js';

const at = () => new Date('2026-01-02T03:04:05.678Z');

const TRICKY_STRINGS = [
  '',
  'plain',
  'bench.echo',
  'quote " and backslash \\',
  'line\nbreak\ttab\r\u0000\u001f\u007f',
  'unicode é ü 中文 ✓',
  'emoji 😀 pair',
  'lone high \ud800 surrogate',
  'lone low \udc00 surrogate',
  'reversed \udc00\ud800 pair',
  '</script> \u2028 \u2029',
  'x'.repeat(150),
];

interface CallCase {
  target: Target;
  id: string;
  ids: CallIds;
  trace: CallTrace;
  outcome: string;
  elapsedMs: number;
  packId?: string;
  artifactVersion?: string;
}

/** The `call` line written for one call, at `debug` so every outcome is written. */
function callLine(call: CallCase): string {
  const lines: string[] = [];
  const deps: CallLogDeps = {
    log: createPackLog({ write: (line) => lines.push(line), now: at, level: 'debug' }),
    packId: call.packId as string,
    artifactVersion: call.artifactVersion as string,
    metrics: undefined,
    tracing: false,
  };
  logCall(deps, call.target, call.id, call.ids, call.trace, call.outcome, call.elapsedMs);
  expect(lines).toHaveLength(1);
  return lines[0] as string;
}

/** The record docs/operations.md documents for `call`, built independently, members in the published order. */
function expected(call: CallCase): Record<string, unknown> {
  const ms = Math.round(call.elapsedMs);
  const record: Record<string, unknown> = {
    time: '2026-01-02T03:04:05.678Z',
    level: call.outcome === 'ok' ? 'info' : 'warn',
    severity: call.outcome === 'ok' ? 'INFO' : 'WARNING',
    subsystem: 'pack',
    message: `${call.target} ${call.id} ${call.outcome} ${ms}ms`,
    event: 'call',
    kind: 'call',
    id: call.id,
    outcome: call.outcome,
    durationMs: Number.isFinite(ms) ? ms + 0 : null,
    target: call.target,
    [call.target === 'tool' ? 'toolId' : 'checkId']: call.id,
  };
  for (const name of ['tenantId', 'projectId', 'orgId', 'runId', 'requestId']) {
    const value = call.ids[name];
    if (typeof value === 'string' && value !== '') record[name] = value;
  }
  record.traceId = call.trace.traceId;
  record.spanId = call.trace.spanId;
  if (call.trace.parentSpanId !== undefined) record.parentSpanId = call.trace.parentSpanId;
  if (call.packId !== undefined) record.packId = call.packId;
  if (call.artifactVersion !== undefined) record.artifactVersion = call.artifactVersion;
  return record;
}

/** The line parses to exactly the documented record, members in the same order. */
function expectDocumented(call: CallCase): void {
  const line = callLine(call);
  expect(line).not.toContain('\n');
  const parsed = JSON.parse(line) as Record<string, unknown>;
  const want = expected(call);
  expect(parsed).toEqual(want);
  expect(Object.keys(parsed)).toEqual(Object.keys(want));
}

const base: CallCase = {
  target: 'tool',
  id: 'bench.echo',
  ids: { tenantId: 't', runId: 'r' },
  trace: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' },
  outcome: 'ok',
  elapsedMs: 0.4,
  packId: 'bench',
  artifactVersion: '20260101.1',
};

describe('the call record', () => {
  it('has the fixed fields, then the call fields in the published order', () => {
    const line = callLine(base);
    expect(Object.keys(JSON.parse(line))).toEqual([
      'time',
      'level',
      'severity',
      'subsystem',
      'message',
      'event',
      'kind',
      'id',
      'outcome',
      'durationMs',
      'target',
      'toolId',
      'tenantId',
      'runId',
      'traceId',
      'spanId',
      'packId',
      'artifactVersion',
    ]);
    expectDocumented(base);
  });

  it('keeps tricky strings in every string field, one line each', () => {
    for (const text of TRICKY_STRINGS) {
      expectDocumented({
        ...base,
        id: text,
        outcome: text === '' ? 'ok' : text,
        ids: { tenantId: text, projectId: text, orgId: text, runId: text, requestId: text },
        trace: { traceId: text, spanId: text, parentSpanId: text },
        packId: text,
        artifactVersion: text,
      });
    }
  });

  it('is written for checks, error outcomes (warn), parent spans and every duration', () => {
    for (const elapsedMs of [0, -0, -0.2, 0.5, 1.49, 12_345.6, 1e21, Number.NaN, Number.POSITIVE_INFINITY]) {
      for (const target of ['tool', 'check'] as const) {
        expectDocumented({
          ...base,
          target,
          outcome: elapsedMs > 1 ? 'handler-throw' : 'ok',
          trace: { ...base.trace, parentSpanId: 'b7ad6b7169203331' },
          elapsedMs,
        });
      }
    }
  });

  it('leaves out caller ids that are not non-empty strings, and absent pack fields', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const call = {
      ...base,
      ids: { tenantId: 10n, projectId: cyclic, orgId: '', runId: undefined, requestId: ['r'], extra: 'x' },
      packId: undefined,
      artifactVersion: undefined,
    };
    expectDocumented(call);
    const parsed = JSON.parse(callLine(call));
    expect(parsed).not.toHaveProperty('tenantId');
    expect(parsed).not.toHaveProperty('packId');
  });

  it('follows the log level', () => {
    const lines: string[] = [];
    const deps: CallLogDeps = {
      log: createPackLog({ write: (line) => lines.push(line), level: 'warn' }),
      packId: 'bench',
      artifactVersion: '1',
      metrics: undefined,
      tracing: false,
    };
    logCall(deps, 'tool', 'a', {}, base.trace, 'ok', 1);
    logCall(deps, 'tool', 'b', {}, base.trace, 'handler-throw', 1);
    expect(lines.map((line) => JSON.parse(line).message)).toEqual(['tool b handler-throw 1ms']);
  });
});
