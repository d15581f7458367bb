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

// The built package, as the process entry runs it (the process tests need `pnpm build` too).
const BUILT = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** Runs `lines` as an ES module in a child with the built package's `createPackLog` imported as `log`'s maker. */
function runScript(lines: string[]) {
  const script = [`const { createPackLog } = await import(${JSON.stringify(BUILT)});`, ...lines].join('\n');
  return spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Everything `stream` sends from now until `child` exits, and the exit code. */
async function readToExit(child: ReturnType<typeof runScript>, stream: NodeJS.ReadableStream) {
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    text += chunk;
  });
  const [code] = await once(child, 'exit');
  return { code, text };
}

describe('batched log lines', () => {
  it('writes the lines of one loop turn together, each whole, at the end of the turn', async () => {
    const { stream, writes } = capture();
    const write = stderrBatchedLineWriter(stream);
    expect(stderrBatchedLineWriter(stream)).toBe(write);
    write('{"a":1}\n');
    write('{"b":2}\n');
    expect(writes).toEqual([]);
    await turnEnd();
    expect(writes).toEqual(['{"a":1}\n{"b":2}\n']);
    write('{"c":3}\n');
    write.flush();
    expect(writes).toEqual(['{"a":1}\n{"b":2}\n', '{"c":3}\n']);
    await turnEnd();
    expect(writes).toHaveLength(2);
  });

  it('keeps the order and whole lines when pack code writes to the stream in between', () => {
    const { stream, writes } = capture();
    const batched = stderrBatchedLineWriter(stream);
    const direct = stderrLineWriter(stream);
    batched('{"a":1}\n');
    stream.write('partial');
    batched('{"b":2}\n');
    direct('{"c":3}\n');
    stream.write(Buffer.from('whole line\n'));
    batched('{"d":4}\n');
    batched.flush();
    expect(writes.join('')).toBe('{"a":1}\npartial\n{"b":2}\n{"c":3}\nwhole line\n{"d":4}\n');
  });

  it('writes held lines when the process exits in the same turn', async () => {
    // A PackLog's default writer is the batched stderr writer.
    const child = runScript([
      'const log = createPackLog();',
      "for (let i = 0; i < 3; i++) log.info('line ' + i);",
      'process.exit(0);',
    ]);
    child.stdout.resume();
    const { code, text } = await readToExit(child, child.stderr);
    expect(code).toBe(0);
    const lines = text.split('\n').filter((line) => line.startsWith('{'));
    expect(lines.map((line) => JSON.parse(line).message)).toEqual(['line 0', 'line 1', 'line 2']);
  });

  it('keeps every line whole and in order through a pipe its reader leaves full', async () => {
    // 1,000 records of ≈ 1.3 kB (non-ASCII too, so bytes ≠ characters) and a pack-code write per turn:
    // far more than a pipe holds while this test does not read, so the descriptor refuses part of it.
    const child = runScript([
      'const log = createPackLog();',
      "const pad = 'é'.repeat(300) + 'x'.repeat(400);",
      'for (let turn = 0; turn < 40; turn++) {',
      "  for (let i = 0; i < 25; i++) log.info('r ' + (turn * 25 + i) + ' ' + pad);",
      "  process.stderr.write('pack ' + turn + '\\n');",
      '  await new Promise((resolve) => setImmediate(resolve));',
      '}',
      "process.stdout.write('done ' + (process.stderr.writableLength > 0) + '\\n');",
    ]);
    // stderr is read only once the child wrote everything: until then the pipe stays full.
    const [done] = await once(child.stdout, 'data');
    expect(String(done)).toBe('done true\n');
    const { code, text: stderr } = await readToExit(child, child.stderr);
    expect(code).toBe(0);
    const expected: string[] = [];
    const pad = 'é'.repeat(300) + 'x'.repeat(400);
    for (let turn = 0; turn < 40; turn++) {
      for (let i = 0; i < 25; i++) expected.push(`r ${turn * 25 + i} ${pad}`);
      expected.push(`pack ${turn}`);
    }
    const got = stderr
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (line.startsWith('{') ? JSON.parse(line).message : line));
    expect(got).toEqual(expected);
  });
});
