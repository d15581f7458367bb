import { describe, expect, it } from 'vitest';
import { jsonNumber, jsonString } from '../src/log/json-text.js';
import { createPackLog, type MaybeMembersLog, type PackLog, RECORD_MEMBERS } from '../src/log/log.js';
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
];

/** The same log without its fast path: every record goes through `record` (fields object + JSON.stringify). */
function withoutFastPath(log: PackLog): PackLog {
  return {
    subsystem: log.subsystem,
    enabled: (level) => log.enabled(level),
    debug: (message, fields) => log.debug(message, fields),
    info: (message, fields) => log.info(message, fields),
    warn: (message, fields) => log.warn(message, fields),
    error: (message, fields) => log.error(message, fields),
    record: (event, level, message, fields) => log.record(event, level, message, fields),
    lifecycle: (event, level, message, fields) => log.lifecycle(event, level, message, fields),
    child: (name, fields) => log.child(name, fields),
  };
}

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

/** The `call` line written through the fast path and through `record`, for one call. */
function bothLines(call: CallCase): { fast: string; generic: string } {
  const lines: string[] = [];
  const log = createPackLog({ write: (line) => lines.push(line), now: at, level: 'debug' });
  expect((log as MaybeMembersLog)[RECORD_MEMBERS]).toBeTypeOf('function');
  const deps = (which: PackLog): CallLogDeps => ({
    log: which,
    packId: call.packId as string,
    artifactVersion: call.artifactVersion as string,
    metrics: undefined,
    tracing: false,
  });
  logCall(deps(log), call.target, call.id, call.ids, call.trace, call.outcome, call.elapsedMs);
  logCall(deps(withoutFastPath(log)), call.target, call.id, call.ids, call.trace, call.outcome, call.elapsedMs);
  expect(lines).toHaveLength(2);
  return { fast: lines[0] as string, generic: lines[1] as string };
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

describe('the call record written without a record object', () => {
  it('is the line `record` writes for an ordinary call, fields in the published order', () => {
    const { fast, generic } = bothLines(base);
    expect(fast).toBe(generic);
    expect(Object.keys(JSON.parse(fast))).toEqual([
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
  });

  it('is the same line for tricky strings in every string field', () => {
    for (const text of TRICKY_STRINGS) {
      const { fast, generic } = bothLines({
        ...base,
        id: text,
        outcome: text === '' ? 'ok' : text,
        ids: { tenantId: text, projectId: text, orgId: text, runId: text, requestId: text },
        trace: { traceId: text, spanId: text, parentSpanId: text },
        packId: text,
        artifactVersion: text,
      });
      expect(fast).toBe(generic);
    }
  });

  it('is the same line for checks, error outcomes (warn), parent spans and every duration', () => {
    for (const elapsedMs of [0, -0, -0.2, 0.5, 1.49, 12_345.6, 1e21, Number.NaN, Number.POSITIVE_INFINITY]) {
      for (const target of ['tool', 'check'] as const) {
        const { fast, generic } = bothLines({
          ...base,
          target,
          outcome: elapsedMs > 1 ? 'handler-throw' : 'ok',
          trace: { ...base.trace, parentSpanId: 'b7ad6b7169203331' },
          elapsedMs,
        });
        expect(fast).toBe(generic);
      }
    }
  });

  it('leaves out caller ids that are not non-empty strings, and absent pack fields, as `record` does', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const { fast, generic } = bothLines({
      ...base,
      ids: { tenantId: 10n, projectId: cyclic, orgId: '', runId: undefined, requestId: ['r'], extra: 'x' },
      packId: undefined,
      artifactVersion: undefined,
    });
    expect(fast).toBe(generic);
    expect(JSON.parse(fast)).not.toHaveProperty('tenantId');
    expect(JSON.parse(fast)).not.toHaveProperty('packId');
  });

  it('is offered only where it writes what `record` would: JSON logs without bound fields', () => {
    const write = () => {};
    expect((createPackLog({ write, format: 'pretty' }) as MaybeMembersLog)[RECORD_MEMBERS]).toBeUndefined();
    const root = createPackLog({ write });
    expect((root.child('pack.tool', { runId: 'r' }) as MaybeMembersLog)[RECORD_MEMBERS]).toBeUndefined();
    expect((root.child('pack.other', { runId: undefined }) as MaybeMembersLog)[RECORD_MEMBERS]).toBeTypeOf('function');
  });

  it('follows the log level', () => {
    const lines: string[] = [];
    const log = createPackLog({ write: (line) => lines.push(line), level: 'warn' });
    const members = (log as MaybeMembersLog)[RECORD_MEMBERS];
    members?.('call', 'info', 'hidden', '');
    members?.('call', 'warn', 'shown', ',"a":1');
    expect(lines.map((line) => JSON.parse(line).message)).toEqual(['shown']);
  });
});

describe('JSON text of single values', () => {
  it('quotes strings exactly as JSON.stringify does', () => {
    for (const text of TRICKY_STRINGS) expect(jsonString(text)).toBe(JSON.stringify(text));
    let every = '';
    for (let code = 0; code < 0x10000; code++) every += String.fromCharCode(code);
    expect(jsonString(every)).toBe(JSON.stringify(every));
  });

  it('finds every code unit that needs escaping wherever it is, in flat and concatenated strings', () => {
    const wrong: string[] = [];
    for (let code = 0; code < 0x10000; code++) {
      const unit = String.fromCharCode(code);
      for (const text of [unit, `call ${unit}`, `${unit} tail`, `tool x${unit}y ok 0ms`]) {
        if (jsonString(text) !== JSON.stringify(text)) wrong.push(JSON.stringify(text));
      }
    }
    expect(wrong).toEqual([]);
    // A well-formed pair is not escaped by JSON.stringify; the slow path must keep it as it is.
    expect(jsonString('a\u{1F600}b')).toBe('"a\u{1F600}b"');
  });

  it('writes numbers as JSON.stringify writes them as object members', () => {
    for (const value of [
      0,
      -0,
      1,
      -1.5,
      0.1 + 0.2,
      1e21,
      1e-7,
      Number.MAX_VALUE,
      Number.NaN,
      Number.NEGATIVE_INFINITY,
    ]) {
      expect(`{"n":${jsonNumber(value)}}`).toBe(JSON.stringify({ n: value }));
    }
  });
});
