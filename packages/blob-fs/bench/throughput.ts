// Sequential put/get throughput of blob-fs on a temporary directory: `pnpm --filter @kindgi/blob-fs bench`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFsBlobStorage } from '../src/index.js';

const MiB = 1024 * 1024;
const dataDir = mkdtempSync(join(tmpdir(), 'kindgi-bench-'));
const opened = openFsBlobStorage({ dataDir });
if (opened.kind === 'err') throw new Error(opened.error.message);
const storage = opened.value;
const chunk = Buffer.alloc(MiB, 7);

async function* body(mib: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < mib; i++) yield chunk;
}

async function measure(label: string, objects: number, mib: number): Promise<void> {
  const start = performance.now();
  for (let i = 0; i < objects; i++) {
    const put = await storage.putByKey('t', 'bench', `${label}/${i}`, {
      name: 'x',
      contentType: 'a/b',
      bytes: body(mib),
    });
    if (put.kind === 'err') throw new Error(put.error.message);
  }
  const putSeconds = (performance.now() - start) / 1000;
  const readStart = performance.now();
  for (let i = 0; i < objects; i++) {
    const got = await storage.getByKey('t', 'bench', `${label}/${i}`);
    if (got.kind === 'err') throw new Error(got.error.message);
    for await (const _ of got.value.stream as unknown as AsyncIterable<Uint8Array>) {
      // Drained only: the figure is read throughput.
    }
  }
  const getSeconds = (performance.now() - readStart) / 1000;
  const total = objects * mib;
  console.log(
    `| ${objects} × ${mib} MiB | put ${(total / putSeconds).toFixed(0)} MiB/s (${(objects / putSeconds).toFixed(1)} obj/s) | get ${(total / getSeconds).toFixed(0)} MiB/s |`,
  );
}

try {
  await measure('large', 8, 64);
  await measure('medium', 64, 1);
  const start = performance.now();
  for (let i = 0; i < 500; i++) {
    const put = await storage.putByKey('t', 'bench', `small/${i}`, {
      name: 'x',
      contentType: 'a/b',
      bytes: Buffer.from('tiny'),
    });
    if (put.kind === 'err') throw new Error(put.error.message);
  }
  console.log(`| 500 × 4 B | put ${(500 / ((performance.now() - start) / 1000)).toFixed(0)} obj/s (fsync-bound) | |`);
} finally {
  storage.close();
  rmSync(dataDir, { recursive: true, force: true });
}
