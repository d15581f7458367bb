import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLog, type Log, stderrBatchedLineWriter, stderrLineWriter } from '../src/index.js';

/** A stream standing in for stderr: what reaches it, one entry per write. */
function captureStream(): { stream: NodeJS.WriteStream; writes: string[] } {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      writes.push(String(chunk));
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  return { stream, writes };
}

function batchedLog(stream: NodeJS.WriteStream): Log {
  const batched = stderrBatchedLineWriter(stream);
  return createLog({ destination: { write: batched, flush: batched.flush }, subsystem: 'pack', level: 'error' });
}

const turnEnd = () => new Promise((resolve) => setImmediate(resolve));

describe('records on a stream other code writes to', () => {
  it('writes a lifecycle record, and what was held before it, at once and in order', async () => {
    const { stream, writes } = captureStream();
    const log = batchedLog(stream);
    log.error('held until the turn ends');
    expect(writes).toEqual([]);
    log.lifecycle('listening', 'info', 'Listening on port 1', { port: 1 });
    expect(
      writes
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).message),
    ).toEqual(['held until the turn ends', 'Listening on port 1']);
    const count = writes.length;
    await turnEnd();
    expect(writes).toHaveLength(count);
  });

  it('never writes a record inside a line other code left unfinished, and keeps the stream order', async () => {
    const { stream, writes } = captureStream();
    const log = batchedLog(stream);
    const direct = stderrLineWriter(stream);
    log.error('one');
    stream.write('pack output without its newline');
    log.error('two');
    direct('{"direct":true}\n');
    stream.write(Buffer.from('a whole pack line\n'));
    log.error('three');
    await turnEnd();
    const lines = writes.join('').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => (line.startsWith('{') ? (JSON.parse(line).message ?? 'direct') : line))).toEqual([
      'one',
      'pack output without its newline',
      'two',
      'direct',
      'a whole pack line',
      'three',
    ]);
  });

  it('writes the records of one loop turn together, each whole', async () => {
    const { stream, writes } = captureStream();
    const log = batchedLog(stream);
    for (let i = 0; i < 3; i++) log.error(`r${i}`, { i });
    await turnEnd();
    expect(writes).toHaveLength(1);
    expect(
      writes[0]
        ?.split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).i),
    ).toEqual([0, 1, 2]);
  });
});
