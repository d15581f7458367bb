import { describe, expect, it } from 'vitest';
import { createLog, type LogOptions } from '../src/index.js';

const at = () => new Date('2026-01-02T03:04:05.678Z');

/** A logger whose records land in `texts`, one entry per `write` call. */
function capture(options: Partial<LogOptions> = {}) {
  const texts: string[] = [];
  const log = createLog({ destination: { write: (text) => texts.push(text) }, subsystem: 'pack', now: at, ...options });
  const records = () => texts.map((text) => JSON.parse(text) as Record<string, unknown>);
  return { log, texts, records };
}

describe('the record shape of docs/operations.md', () => {
  it('writes one line per record in one write: time, level, severity, subsystem, message, then fields', () => {
    const { log, texts, records } = capture();
    log.info('hello', { a: 1, skip: undefined, nested: { b: [1, 'x'] } });
    expect(texts).toEqual([
      '{"time":"2026-01-02T03:04:05.678Z","level":"info","severity":"INFO","subsystem":"pack","message":"hello","a":1,"nested":{"b":[1,"x"]}}\n',
    ]);
    expect(records()[0]).not.toHaveProperty('pid');
    expect(records()[0]).not.toHaveProperty('hostname');
  });

  it('puts event before message in the event-message layout, after it with kind in the pack layout', () => {
    const server = capture({ subsystem: 'server' });
    server.log.record('listening', 'info', 'Listening', { port: 1 });
    expect(Object.keys(server.records()[0] as object)).toEqual([
      'time',
      'level',
      'severity',
      'subsystem',
      'event',
      'message',
      'port',
    ]);
    const pack = capture({ layout: 'message-event-kind' });
    pack.log.record('call', 'warn', 'tool x handler-throw 3ms', { outcome: 'handler-throw' });
    expect(pack.records()).toEqual([
      {
        time: '2026-01-02T03:04:05.678Z',
        level: 'warn',
        severity: 'WARNING',
        subsystem: 'pack',
        message: 'tool x handler-throw 3ms',
        event: 'call',
        kind: 'call',
        outcome: 'handler-throw',
      },
    ]);
    expect(Object.keys(pack.records()[0] as object).slice(4, 8)).toEqual(['message', 'event', 'kind', 'outcome']);
  });

  it('names every level as a word with its Cloud Logging severity', () => {
    const { log, records } = capture({ level: 'debug' });
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    expect(records().map((r) => [r.level, r.severity])).toEqual([
      ['debug', 'DEBUG'],
      ['info', 'INFO'],
      ['warn', 'WARNING'],
      ['error', 'ERROR'],
    ]);
  });

  it('adds bound, then context, then own fields; the first value of a name wins and fixed names stay', () => {
    const { log, records } = capture({ context: () => ({ traceId: 't', runId: 'from-context' }) });
    log.child('pack.tool', { runId: 'r', toolId: 'x' }).info('line', {
      runId: 'spoofed',
      traceId: 'spoofed',
      level: 'error',
      subsystem: 'other',
      message: 'other',
      own: 1,
    });
    const [record] = records();
    expect(record).toEqual({
      time: '2026-01-02T03:04:05.678Z',
      level: 'info',
      severity: 'INFO',
      subsystem: 'pack.tool',
      message: 'line',
      runId: 'r',
      toolId: 'x',
      traceId: 't',
      own: 1,
    });
    expect(Object.keys(record as object).slice(4)).toEqual(['message', 'runId', 'toolId', 'traceId', 'own']);
  });

  it('leaves out a field named like a fixed one on the fast path too', () => {
    const { log, texts } = capture();
    log.record('call', 'info', 'm', { time: 'x', id: 'a' });
    expect(texts[0]).toBe(
      '{"time":"2026-01-02T03:04:05.678Z","level":"info","severity":"INFO","subsystem":"pack","event":"call","message":"m","id":"a"}\n',
    );
  });
});

describe('guarantees', () => {
  it('filters by level per subsystem, the longest dotted prefix winning; lifecycle records at any level', () => {
    const { log, records } = capture({ level: 'error', levels: { pack: 'warn', 'pack.tool': 'debug' } });
    log.info('root info: below warn');
    log.warn('root warn');
    log.lifecycle('listening', 'info', 'Listening on port 1', { port: 1 });
    log.child('pack.tool').debug('tool debug');
    log.child('pack.toolbox').info('not under pack.tool: warn applies');
    log.child('other').warn('base level error applies');
    expect(records().map((r) => r.message)).toEqual(['root warn', 'Listening on port 1', 'tool debug']);
    expect(log.enabled('info')).toBe(false);
    expect(log.child('pack.tool').enabled('debug')).toBe(true);
  });

  it('flushes the destination at once after a lifecycle record, and not after others', () => {
    const events: string[] = [];
    const log = createLog({
      destination: {
        write: (text) => events.push(`write ${JSON.parse(text).message}`),
        flush: () => events.push('flush'),
      },
      subsystem: 'pack',
    });
    log.info('a');
    log.lifecycle('stopped', 'info', 'Stopped');
    expect(events).toEqual(['write a', 'write Stopped', 'flush']);
  });

  it('writes one readable line per record in the pretty format', () => {
    const { log, texts } = capture({ format: 'pretty' });
    log.warn('two\nlines', { id: 'x', n: 2, list: ['a'] });
    log.record('call', 'info', 'ok', { id: 'y' });
    expect(texts).toEqual([
      '2026-01-02T03:04:05.678Z WARN  [pack] two\\nlines id=x n=2 list=["a"]\n',
      '2026-01-02T03:04:05.678Z INFO  [pack] ok event=call id=y\n',
    ]);
  });

  it('keeps a record whose fields hold a cycle or a BigInt', () => {
    const { log, texts, records } = capture();
    const cyclic: Record<string, unknown> = { n: 1 };
    cyclic.self = cyclic;
    log.warn('cyclic', { cyclic, after: 'kept' });
    log.warn('bigint', { big: 2n ** 64n, nested: { big: 1n }, after: 'kept' });
    log.child('pack.tool', { bound: cyclic }).error('bound cycle');
    expect(texts).toHaveLength(3);
    expect(records()).toMatchObject([
      { message: 'cyclic', cyclic: { n: 1, self: '[Circular]' }, after: 'kept' },
      { message: 'bigint', big: 18446744073709552000, nested: { big: 1 }, after: 'kept' },
      { message: 'bound cycle', bound: { n: 1, self: '[Circular]' } },
    ]);
    expect(texts[1]).toContain('"big":18446744073709551616');
  });

  it('keeps each record on one line whatever its strings hold', () => {
    const { log, texts, records } = capture();
    const tricky = 'quote " backslash \\ newline \n tab \t nul \u0000 \u2028 é 😀';
    log.info(tricky, { [tricky]: tricky });
    expect(texts[0]?.indexOf('\n')).toBe((texts[0]?.length ?? 0) - 1);
    expect(records()[0]).toMatchObject({ message: tricky, [tricky]: tricky });
  });
});
