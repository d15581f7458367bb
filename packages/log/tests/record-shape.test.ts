import { describe, expect, it } from 'vitest';
import { createLog, type LogOptions } from '../src/index.js';

const at = () => new Date('2026-01-02T03:04:05.678Z');

function capture(options: Partial<LogOptions> = {}) {
  const texts: string[] = [];
  const log = createLog({ destination: { write: (text) => texts.push(text) }, subsystem: 'pack', now: at, ...options });
  return { log, texts };
}

const NAMES = ['id', 'count', 'flag', 'nested', 'skipped', 'big', 'ratio', 'text'];
const cyclic: Record<string, unknown> = {};
cyclic.self = cyclic;
const VALUES = ['x', 3, true, { a: [1, 'b'] }, undefined, 10n, Number.NaN, 'quote " é \ud800 \n'];

describe('a record shape', () => {
  it('writes exactly the text `record` writes for the same fields, in both layouts', () => {
    for (const layout of ['event-message', 'message-event-kind'] as const) {
      const shaped = capture({ layout });
      const plain = capture({ layout });
      shaped.log.shape('call', NAMES).write('warn', 'tool x ok 3ms', VALUES);
      const fields = Object.fromEntries(NAMES.map((name, i) => [name, VALUES[i]]));
      plain.log.record('call', 'warn', 'tool x ok 3ms', fields);
      expect(shaped.texts).toEqual(plain.texts);
      expect(shaped.texts[0]).toMatch(/^\{"time":"2026-01-02T03:04:05.678Z","level":"warn","severity":"WARNING"/);
      expect(shaped.texts[0]?.endsWith('}\n')).toBe(true);
    }
  });

  it('leaves out fixed, head and bound names and repeated names; bound fields come first', () => {
    const { log, texts } = capture({ layout: 'message-event-kind' });
    const child = log.child('pack.tool', { runId: 'bound', gone: undefined });
    const names = ['time', 'level', 'message', 'kind', 'runId', 'gone', 'own', 'own'];
    child.shape('call', names).write('info', 'm', ['t', 'l', 'msg', 'k', 'spoofed', 'kept', 1, 2]);
    expect(Object.entries(JSON.parse(texts[0] as string))).toEqual([
      ['time', '2026-01-02T03:04:05.678Z'],
      ['level', 'info'],
      ['severity', 'INFO'],
      ['subsystem', 'pack.tool'],
      ['message', 'm'],
      ['event', 'call'],
      ['kind', 'call'],
      ['runId', 'bound'],
      ['gone', 'kept'],
      ['own', 1],
    ]);
  });

  it('follows the level, writes pretty text, and with a context builds the record as `record` does', () => {
    const quiet = capture({ level: 'warn' });
    quiet.log.shape('call', ['id']).write('info', 'dropped', ['x']);
    expect(quiet.texts).toEqual([]);

    const pretty = capture({ format: 'pretty' });
    pretty.log.shape('call', ['id']).write('info', 'hello', ['x']);
    expect(pretty.texts).toEqual(['2026-01-02T03:04:05.678Z INFO  [pack] hello event=call id=x\n']);

    const withContext = capture({ context: () => ({ traceId: 't', id: 'from-context' }) });
    withContext.log.shape('call', ['id', 'other']).write('error', 'ctx', ['own', cyclic]);
    expect(JSON.parse(withContext.texts[0] as string)).toMatchObject({
      level: 'error',
      event: 'call',
      traceId: 't',
      id: 'from-context',
      other: { self: '[Circular]' },
    });
  });
});
