// The S3 surface benchmark: 256 MiB PUT/GET with curl on presigned URLs against our surface and a raw
// node:http floor, then 4 KiB PUT/GET ops/s at 8 concurrent against our surface and s3rver. Writes the
// figures to docs/benchmarks/s3.md. Run: pnpm --filter @kindgi/s3 bench
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

const BENCH_KEY_ID = 'AKIAKINDGIBENCH00001';
const BENCH_SECRET = 'kindgi-bench-secret-0123456789abcdefghij';
const here = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);
const BIG = 256 * 1024 * 1024;
const ROUNDS = 3;
const SMALL = 4096;
const SMALL_OPS = 2000;
const CONCURRENCY = 8;

interface BenchServer {
  port: number;
  /** RSS figures, and the server process's CPU time so far (user + system, from process.cpuUsage). */
  stats(): Promise<{ baselineRss: number; peakRss: number; cpuMicros: number }>;
  stop(): Promise<void>;
}

async function startServer(mode: 's3' | 's3-files' | 'raw' | 's3rver', dataDir: string): Promise<BenchServer> {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', join(here, 's3-bench-server.ts'), mode, dataDir],
    { cwd: join(here, '..'), stdio: 'pipe' },
  );
  child.stderr.pipe(process.stderr);
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse(String((await lines.next()).value)) as Record<string, number>;
  const { port } = await next();
  return {
    port: port!,
    stats: async () => {
      child.stdin.write('stats\n');
      const line = await next();
      return { baselineRss: line.baselineRss!, peakRss: line.peakRss!, cpuMicros: line.cpuMicros! };
    },
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

function client(
  port: number,
  basePath: string,
  keys = { accessKeyId: BENCH_KEY_ID, secretAccessKey: BENCH_SECRET },
): S3Client {
  return new S3Client({
    endpoint: `http://127.0.0.1:${port}${basePath}`,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: keys,
  });
}

// s3rver's built-in credentials.
const S3RVER_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

async function curlSeconds(args: string[]): Promise<number> {
  const { stdout } = await run('curl', [
    '-sS',
    '--fail',
    '--noproxy',
    '*',
    '-o',
    '/dev/null',
    '-w',
    '%{time_total}',
    ...args,
  ]);
  return Number(stdout);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mibPerSecond = (seconds: number) => BIG / 1024 / 1024 / seconds;

async function bigObjects(work: string, file: string) {
  const s3 = await startServer('s3', join(work, 's3-big'));
  const raw = await startServer('raw', join(work, 'raw-big'));
  const sdk = client(s3.port, '/s3');
  const times = { s3Put: [] as number[], s3Get: [] as number[], rawPut: [] as number[], rawGet: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const key = `big-${round}.bin`;
    const putUrl = await getSignedUrl(sdk, new PutObjectCommand({ Bucket: 'bucket1', Key: key }), { expiresIn: 3600 });
    const getUrl = await getSignedUrl(sdk, new GetObjectCommand({ Bucket: 'bucket1', Key: key }), { expiresIn: 3600 });
    times.rawPut.push(await curlSeconds(['-H', 'Expect:', '-T', file, `http://127.0.0.1:${raw.port}/${key}`]));
    times.s3Put.push(await curlSeconds(['-H', 'Expect:', '-T', file, putUrl]));
    times.rawGet.push(await curlSeconds([`http://127.0.0.1:${raw.port}/${key}`]));
    times.s3Get.push(await curlSeconds([getUrl]));
  }
  const s3Stats = await s3.stats();
  const rawStats = await raw.stats();
  sdk.destroy();
  await s3.stop();
  await raw.stop();
  return { times, s3Stats, rawStats };
}

/** Ops per second (wall clock) and server CPU milliseconds per op: the latter holds up on a loaded machine. */
interface Rate {
  opsPerSecond: number;
  cpuMsPerOp: number;
}

function timer(server: BenchServer) {
  return async (op: (i: number) => Promise<unknown>): Promise<Rate> => {
    let nextIndex = 0;
    const cpuBefore = (await server.stats()).cpuMicros;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (nextIndex < SMALL_OPS) await op(nextIndex++);
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpuMicros = (await server.stats()).cpuMicros - cpuBefore;
    return { opsPerSecond: SMALL_OPS / seconds, cpuMsPerOp: cpuMicros / 1000 / SMALL_OPS };
  };
}

async function smallOps(sdk: S3Client, server: BenchServer): Promise<{ put: Rate; get: Rate }> {
  const body = randomBytes(SMALL);
  const timed = timer(server);
  await sdk.send(new PutObjectCommand({ Bucket: 'bucket1', Key: 'warmup', Body: body }));
  const put = await timed((i) => sdk.send(new PutObjectCommand({ Bucket: 'bucket1', Key: `small/${i}`, Body: body })));
  const get = await timed(async (i) => {
    const got = await sdk.send(new GetObjectCommand({ Bucket: 'bucket1', Key: `small/${i}` }));
    await got.Body?.transformToByteArray();
  });
  sdk.destroy();
  return { put, get };
}

/** The same 4 KiB ops with URLs presigned before the clock starts, sent with fetch: the server, not the SDK, is timed. */
async function smallOpsPresigned(sdk: S3Client, server: BenchServer): Promise<{ put: Rate; get: Rate }> {
  const body = randomBytes(SMALL);
  const keys = Array.from({ length: SMALL_OPS }, (_, i) => `presigned/${i}`);
  const sign = (command: PutObjectCommand | GetObjectCommand) => getSignedUrl(sdk, command, { expiresIn: 3600 });
  const putUrls = await Promise.all(keys.map((Key) => sign(new PutObjectCommand({ Bucket: 'bucket1', Key }))));
  const getUrls = await Promise.all(keys.map((Key) => sign(new GetObjectCommand({ Bucket: 'bucket1', Key }))));
  const timed = timer(server);
  const check = async (response: Response) => {
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`benchmark request failed: ${response.status}`);
  };
  const put = await timed(async (i) => check(await fetch(putUrls[i]!, { method: 'PUT', body })));
  const get = await timed(async (i) => check(await fetch(getUrls[i]!)));
  sdk.destroy();
  return { put, get };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'kindgi-s3-bench-'));
  const loadBefore = loadavg()[0]!.toFixed(1);
  try {
    const file = join(work, 'big.bin');
    const out = createWriteStream(file);
    for (let written = 0; written < BIG; written += 1024 * 1024) out.write(randomBytes(1024 * 1024));
    await new Promise((resolve) => out.end(resolve));

    const big = await bigObjects(work, file);
    const ours = await startServer('s3', join(work, 's3-small'));
    const oursSmall = await smallOps(client(ours.port, '/s3'), ours);
    const oursPresigned = await smallOpsPresigned(client(ours.port, '/s3'), ours);
    await ours.stop();
    const files = await startServer('s3-files', join(work, 's3-files-small'));
    const filesSmall = await smallOps(client(files.port, '/s3'), files);
    const filesPresigned = await smallOpsPresigned(client(files.port, '/s3'), files);
    await files.stop();
    const peer = await startServer('s3rver', join(work, 's3rver-small'));
    const peerSmall = await smallOps(client(peer.port, '', S3RVER_KEYS), peer);
    const peerPresigned = await smallOpsPresigned(client(peer.port, '', S3RVER_KEYS), peer);
    await peer.stop();

    const s3Put = mibPerSecond(median(big.times.s3Put));
    const s3Get = mibPerSecond(median(big.times.s3Get));
    const rawPut = mibPerSecond(median(big.times.rawPut));
    const rawGet = mibPerSecond(median(big.times.rawGet));
    const growth = (big.s3Stats.peakRss - big.s3Stats.baselineRss) / 1024 / 1024;
    const rawGrowth = (big.rawStats.peakRss - big.rawStats.baselineRss) / 1024 / 1024;
    const f = (n: number) => n.toFixed(1);
    const r = (ours: number, theirs: number) => (ours / theirs).toFixed(2);
    const small = (
      title: string,
      peerRow: string,
      oursRow: string,
      peerRates: typeof peerSmall,
      ourRates: typeof oursSmall,
      fileRates: typeof oursSmall,
    ) =>
      `## 4 KiB objects, ${SMALL_OPS} ops at ${CONCURRENCY} concurrent, ${title}

| | PUT ops/s | GET ops/s | PUT server CPU ms/op | GET server CPU ms/op |
|---|---|---|---|---|
| ${peerRow} | ${f(peerRates.put.opsPerSecond)} | ${f(peerRates.get.opsPerSecond)} | ${peerRates.put.cpuMsPerOp.toFixed(3)} | ${peerRates.get.cpuMsPerOp.toFixed(3)} |
| Kindgi /s3, every object a file (fsync + rename + row per PUT: the earlier design) | ${f(fileRates.put.opsPerSecond)} | ${f(fileRates.get.opsPerSecond)} | ${fileRates.put.cpuMsPerOp.toFixed(3)} | ${fileRates.get.cpuMsPerOp.toFixed(3)} |
| ${oursRow} | ${f(ourRates.put.opsPerSecond)} | ${f(ourRates.get.opsPerSecond)} | ${ourRates.put.cpuMsPerOp.toFixed(3)} | ${ourRates.get.cpuMsPerOp.toFixed(3)} |
| ratio, ours/s3rver (goal PUT ≥ 2, GET ≥ 3; CPU: s3rver/ours) | ${r(ourRates.put.opsPerSecond, peerRates.put.opsPerSecond)} | ${r(ourRates.get.opsPerSecond, peerRates.get.opsPerSecond)} | ${r(peerRates.put.cpuMsPerOp, ourRates.put.cpuMsPerOp)} | ${r(peerRates.get.cpuMsPerOp, ourRates.get.cpuMsPerOp)} |
`;
    const report = `# S3 surface benchmark

Command: \`pnpm --filter @kindgi/s3 bench\` (packages/s3/bench/s3-bench.ts). Date: ${new Date().toISOString()}.
Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}. Servers run in their own
processes on 127.0.0.1; ours uses the filesystem binding (@kindgi/blob-fs: objects up to 64 KiB inside SQLite,
concurrent PUTs committed together, one fsync per group; larger ones temp file, fsync, rename, SQLite row).
1-minute load average before/after: ${loadBefore} / ${loadavg()[0]!.toFixed(1)} (figures from a shared machine are noisy;
server CPU time per op, from each server's process.cpuUsage, depends far less on the load than ops/s).

## 256 MiB object, curl on presigned URLs (median of ${ROUNDS})

| | PUT MiB/s | GET MiB/s | server peak RSS growth |
|---|---|---|---|
| raw node:http floor (stream to file + fsync / file back) | ${f(rawPut)} | ${f(rawGet)} | ${f(rawGrowth)} MiB |
| Kindgi /s3 (SigV4, MD5+sha256, fs binding) | ${f(s3Put)} | ${f(s3Get)} | ${f(growth)} MiB |
| ratio (goal PUT ≥ 0.7, GET ≥ 0.9) | ${(s3Put / rawPut).toFixed(2)} | ${(s3Get / rawGet).toFixed(2)} | goal < 64 MiB |

${small('@aws-sdk/client-s3 (keep-alive)', 's3rver 3.7.1 (SigV4 checked with its built-in key; no fsync)', 'Kindgi /s3 (fs binding, durable before 200)', peerSmall, oursSmall, filesSmall)}
${small('URLs presigned up front, sent with fetch (keep-alive)', 's3rver 3.7.1', 'Kindgi /s3', peerPresigned, oursPresigned, filesPresigned)}`;
    process.stdout.write(report);
    const docs = join(here, '..', '..', '..', 'docs', 'benchmarks', 's3.md');
    writeFileSync(docs, report);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
