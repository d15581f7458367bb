import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createPackLog, stderrLineWriter } from '../src/log/log.js';

const at = () => new Date('2026-01-02T03:04:05.678Z');

describe('pack log records', () => {
  it('writes one JSON line per record with the fixed fields first', () => {
    const lines: string[] = [];
    const log = createPackLog({ write: (line) => lines.push(line), now: at });
    log.info('hello', { a: 1, skip: undefined });
    log.record('call', 'warn', 'tool x handler-throw 3ms', { outcome: 'handler-throw' });
    log.debug('hidden');
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { time: '2026-01-02T03:04:05.678Z', level: 'info', severity: 'INFO', subsystem: 'pack', message: 'hello', a: 1 },
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
    expect(Object.keys(JSON.parse(lines[0] as string))).toEqual([
      'time',
      'level',
      'severity',
      'subsystem',
      'message',
      'a',
    ]);
  });

  it('writes lifecycle records at any level and filters the rest by level and subsystem', () => {
    const lines: string[] = [];
    const log = createPackLog({ write: (line) => lines.push(line), level: 'error', levels: { 'pack.tool': 'debug' } });
    log.record('call', 'info', 'filtered');
    log.lifecycle('listening', 'info', 'Listening on port 1', { port: 1 });
    log.child('pack.tool', { runId: 'r' }).debug('tool line');
    const records = lines.map((line) => JSON.parse(line));
    expect(records.map((r) => r.message)).toEqual(['Listening on port 1', 'tool line']);
    expect(records[0]).toMatchObject({ event: 'listening', kind: 'listening', port: 1, level: 'info' });
    expect(records[1]).toMatchObject({ subsystem: 'pack.tool', runId: 'r' });
    expect(records[1]).not.toHaveProperty('event');
  });

  it('keeps a record whose fields JSON.stringify cannot serialise', () => {
    const lines: string[] = [];
    const cyclic: Record<string, unknown> = { n: 1 };
    cyclic.self = cyclic;
    createPackLog({ write: (line) => lines.push(line), now: at }).warn('cyclic', { cyclic, big: 1n, after: 'kept' });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      level: 'warn',
      message: 'cyclic',
      cyclic: { n: 1, self: '[Circular]' },
      big: 1,
      after: 'kept',
    });
  });

  it('writes one readable line per record in the pretty format', () => {
    const lines: string[] = [];
    createPackLog({ write: (line) => lines.push(line), now: at, format: 'pretty' }).warn('two\nlines', {
      id: 'x',
      n: 2,
    });
    expect(lines).toEqual(['2026-01-02T03:04:05.678Z WARN  [pack] two\\nlines id=x n=2']);
  });

  it('starts a record on a fresh line when pack code left a partial line on stderr', () => {
    let written = '';
    const stream = new Writable({
      write(chunk, _encoding, done) {
        written += String(chunk);
        done();
      },
    }) as unknown as NodeJS.WriteStream;
    const writeLine = stderrLineWriter(stream);
    expect(stderrLineWriter(stream)).toBe(writeLine);
    writeLine('{"a":1}\n');
    stream.write('partial');
    writeLine('{"b":2}\n');
    stream.write(Buffer.from('whole line\n'));
    writeLine('{"c":3}\n');
    expect(written).toBe('{"a":1}\npartial\n{"b":2}\nwhole line\n{"c":3}\n');
    for (const line of written.split('\n').filter((l) => l.startsWith('{')))
      expect(() => JSON.parse(line)).not.toThrow();
  });
});
