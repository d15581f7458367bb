import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stderrBatchedLineWriter, stderrLineWriter } from '../src/log/log.js';

function capture(): { stream: NodeJS.WriteStream; writes: string[] } {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      writes.push(String(chunk));
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  return { stream, writes };
}

const turnEnd = () => new Promise((resolve) => setImmediate(resolve));

describe('batched log lines', () => {
  it('writes the lines of one loop turn together, each whole, at the end of the turn', async () => {
    const { stream, writes } = capture();
    const write = stderrBatchedLineWriter(stream);
    expect(stderrBatchedLineWriter(stream)).toBe(write);
    write('{"a":1}');
    write('{"b":2}');
    expect(writes).toEqual([]);
    await turnEnd();
    expect(writes).toEqual(['{"a":1}\n{"b":2}\n']);
    write('{"c":3}');
    write.flush();
    expect(writes).toEqual(['{"a":1}\n{"b":2}\n', '{"c":3}\n']);
    await turnEnd();
    expect(writes).toHaveLength(2);
  });

  it('keeps the order and whole lines when pack code writes to the stream in between', () => {
    const { stream, writes } = capture();
    const batched = stderrBatchedLineWriter(stream);
    const direct = stderrLineWriter(stream);
    batched('{"a":1}');
    stream.write('partial');
    batched('{"b":2}');
    direct('{"c":3}');
    stream.write(Buffer.from('whole line\n'));
    batched('{"d":4}');
    batched.flush();
    expect(writes.join('')).toBe('{"a":1}\npartial\n{"b":2}\n{"c":3}\nwhole line\n{"d":4}\n');
  });

  it('writes held lines when the process exits in the same turn', async () => {
    // The built package, as the process entry runs it (the process tests need `pnpm build` too).
    const module = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const script = [
      // A PackLog's default writer is the batched stderr writer.
      `const { createPackLog } = await import(${JSON.stringify(module)});`,
      'const log = createPackLog();',
      "for (let i = 0; i < 3; i++) log.info('line ' + i);",
      'process.exit(0);',
    ].join('\n');
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    const lines = stderr.split('\n').filter((line) => line.startsWith('{'));
    expect(lines.map((line) => JSON.parse(line).message)).toEqual(['line 0', 'line 1', 'line 2']);
  });
});
