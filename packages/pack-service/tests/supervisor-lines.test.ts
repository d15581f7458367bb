import { describe, expect, it } from 'vitest';
import { createLineReader } from '../src/supervisor/line-reader.js';
import { classifyServiceLine, listeningPort, recordProblems } from '../src/supervisor/service-event.js';

function readAll(chunks: Array<Buffer | string>, max?: number) {
  const lines: string[] = [];
  const reader = createLineReader((line) => lines.push(line), max);
  for (const chunk of chunks) reader.push(chunk);
  reader.end();
  return { lines, dropped: reader.dropped };
}

describe('supervisor: reading a child’s stderr', () => {
  it('reassembles lines split across chunks, including multi-byte characters and CRLF', () => {
    const bytes = Buffer.from('{"a":"é"}\r\nsecond line\nlast', 'utf8');
    const chunks = [...bytes].map((byte) => Buffer.from([byte]));
    expect(readAll(chunks).lines).toEqual(['{"a":"é"}', 'second line', 'last']);
  });

  it('drops a line over the limit whole and keeps reading after it', () => {
    const huge = 'x'.repeat(100);
    expect(readAll([`short\n${huge.slice(0, 50)}`, `${huge.slice(50)}\nafter\n`], 64)).toEqual({
      lines: ['short', 'after'],
      dropped: 1,
    });
    expect(readAll([`${huge}\nok`], 64)).toEqual({ lines: ['ok'], dropped: 1 });
  });

  it('classifies pack records by event, other records as record, and ignores noise', () => {
    const listening = JSON.stringify({ subsystem: 'pack', event: 'listening', kind: 'listening', port: 4100 });
    expect(classifyServiceLine(listening)?.kind).toBe('listening');
    expect(classifyServiceLine(JSON.stringify({ subsystem: 'pack.tool', message: 'hi' }))?.kind).toBe('record');
    expect(classifyServiceLine(JSON.stringify({ subsystem: 'pack', message: 'no event' }))?.kind).toBe('record');
    expect(classifyServiceLine(JSON.stringify({ kind: 'boot-failed', problems: ['a'] }))?.kind).toBe('boot-failed');
    expect(classifyServiceLine(JSON.stringify({ kind: 'something-else' }))).toBeUndefined();
    expect(classifyServiceLine('hold: /tmp/x')).toBeUndefined();
    expect(classifyServiceLine('{"subsystem":"pack","event":')).toBeUndefined();
    expect(classifyServiceLine('[1,2]')).toBeUndefined();
    expect(classifyServiceLine('null')).toBeUndefined();
  });

  it('reads the port and the problems defensively', () => {
    expect(listeningPort({ port: 4100 })).toBe(4100);
    expect(listeningPort({ port: '4100' })).toBeUndefined();
    expect(listeningPort({ port: 0 })).toBeUndefined();
    expect(recordProblems({ problems: ['a', { path: 'b' }] })).toEqual(['a', '{"path":"b"}']);
    expect(recordProblems({ message: 'Boot failed' })).toEqual(['Boot failed']);
  });
});
