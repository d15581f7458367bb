// One benchmark server per process, so its RSS is its own: `s3` (our surface on the filesystem binding),
// `raw` (the floor: node:http streaming a body to a file with the same fsync, and a file back) or `s3rver`.
// Prints `{"port":N}` when listening; answers a `stats` line on stdin with `{"baselineRss","peakRss"}` (the
// bench reads CPU time from /proc itself).
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { createAdaptorServer } from '@hono/node-server';
import { openFsBlobStorage } from '@kindgi/blob-fs';
import { createS3App } from '../src/index.js';

const [mode = 's3', dataDir = '/tmp/kindgi-s3-bench'] = process.argv.slice(2);
export const BENCH_KEY_ID = 'AKIAKINDGIBENCH00001';
export const BENCH_SECRET = 'kindgi-bench-secret-0123456789abcdefghij';

let peak = 0;
// memoryUsage.rss() alone: the full memoryUsage() walks the heap, a cost the servers under test would pay.
const sample = () => {
  peak = Math.max(peak, process.memoryUsage.rss());
};
const sampler = setInterval(sample, 20);
sampler.unref();

async function rawHandler(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const file = join(dataDir, encodeURIComponent(req.url ?? '/'));
  if (req.method === 'PUT') {
    const temp = `${file}.tmp`;
    await pipeline(req, createWriteStream(temp));
    // fsync is per file, not per descriptor: the same durability the blob binding pays before its rename.
    const handle = await open(temp, 'r+');
    await handle.sync();
    await handle.close();
    await rename(temp, file);
    res.writeHead(200).end();
    return;
  }
  const info = await stat(file).catch(() => undefined);
  if (!info) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-length': String(info.size) });
  await pipeline(createReadStream(file, { highWaterMark: 256 * 1024 }), res);
}

async function start(): Promise<Server> {
  await mkdir(dataDir, { recursive: true });
  if (mode === 'raw') {
    return createServer((req, res) => {
      rawHandler(req, res).catch(() => res.destroy());
    });
  }
  if (mode === 's3rver') {
    const { default: S3rver } = (await import('s3rver')) as unknown as {
      default: new (options: Record<string, unknown>) => { run(): Promise<unknown>; httpServer?: Server };
    };
    const instance = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: dataDir,
      configureBuckets: [{ name: 'bucket1' }],
    });
    await instance.run();
    return (instance as unknown as { httpServer: Server }).httpServer;
  }
  // s3-files: every object in its own file (fsync, rename, row), the design before small objects went inline.
  const opened = openFsBlobStorage({ dataDir, ...(mode === 's3-files' ? { inlineMaxBytes: 0 } : {}) });
  if (opened.kind === 'err') throw new Error(opened.error.message);
  const app = createS3App({
    blobStorage: opened.value,
    s3Credentials: {
      resolve: async (id) =>
        id === BENCH_KEY_ID ? { secretKey: BENCH_SECRET, tenantId: 'bench', bucket: 'bucket1' } : null,
    },
  });
  return createAdaptorServer({ fetch: app.fetch }) as Server;
}

const server = await start();
if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
sample();
const baseline = process.memoryUsage.rss();
process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === 'stats') {
    sample();
    process.stdout.write(`${JSON.stringify({ baselineRss: baseline, peakRss: peak })}\n`);
  }
}
process.exit(0);
