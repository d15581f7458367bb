// The S3 surface benchmark: 256 MiB PUT/GET with curl on presigned URLs against our surface and a raw
// node:http floor (rounds alternate between the two), then 4 KiB PUT/GET ops/s at 8 concurrent against our
// surface and s3rver. Puts its new figures at the top of docs/benchmarks/s3.md (older ones kept below) and
// records the big-object ratios for `pnpm bench`'s summary. Run: pnpm --filter @kindgi/s3 bench
// (BENCH_ONLY=big: the big-object part alone; BENCH_ROUNDS=N: rounds of it, default 5; BENCH_PROFILE=<dir>:
// servers write CPU profiles there, and the figures are printed only; BENCH_DRY=1: printed only).
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { recordBenchResult, treeCpuMicros } from '@kindgi/test-services/bench-kit';
import { type BigResult, type BigTimes, bigReport, writeReport } from './s3-bench-report.js';

const BENCH_KEY_ID = 'AKIAKINDGIBENCH00001';
const BENCH_SECRET = 'kindgi-bench-secret-0123456789abcdefghij';
const here = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);
const BIG = 256 * 1024 * 1024;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ONLY_BIG = process.env.BENCH_ONLY === 'big';
const SMALL = 4096;
const SMALL_OPS = 2000;
const CONCURRENCY = 8;

interface BenchServer {
  port: number;
  /** RSS figures, and the server's CPU time so far (user + system of its whole process tree, from /proc). */
  stats(): Promise<{ baselineRss: number; peakRss: number; cpuMicros: number }>;
  stop(): Promise<void>;
}

async function startServer(mode: 's3' | 's3-files' | 'raw' | 's3rver', dataDir: string): Promise<BenchServer> {
  // BENCH_PROFILE=<dir>: the servers write V8 CPU profiles there (node --cpu-prof) when they exit.
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE] : [];
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [...profile, '--conditions=source', '--import', 'tsx', join(here, 's3-bench-server.ts'), mode, dataDir],
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
      return { baselineRss: line.baselineRss!, peakRss: line.peakRss!, cpuMicros: treeCpuMicros(child.pid!) };
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

async function bigObjects(work: string, file: string): Promise<BigResult> {
  const s3 = await startServer('s3', join(work, 's3-big'));
  const raw = await startServer('raw', join(work, 'raw-big'));
  const sdk = client(s3.port, '/s3');
  const empty = (): BigTimes => ({ seconds: [], cpuMs: [] });
  const times = { s3Put: empty(), s3Get: empty(), rawPut: empty(), rawGet: empty() };
  const timed = async (server: BenchServer, into: BigTimes, args: string[]) => {
    const before = (await server.stats()).cpuMicros;
    into.seconds.push(await curlSeconds(args));
    into.cpuMs.push(((await server.stats()).cpuMicros - before) / 1000);
  };
  for (let round = 0; round < ROUNDS; round++) {
    const key = `big-${round}.bin`;
    const putUrl = await getSignedUrl(sdk, new PutObjectCommand({ Bucket: 'bucket1', Key: key }), { expiresIn: 3600 });
    const getUrl = await getSignedUrl(sdk, new GetObjectCommand({ Bucket: 'bucket1', Key: key }), { expiresIn: 3600 });
    const rawUrl = `http://127.0.0.1:${raw.port}/${key}`;
    const puts = [
      () => timed(raw, times.rawPut, ['-H', 'Expect:', '-T', file, rawUrl]),
      () => timed(s3, times.s3Put, ['-H', 'Expect:', '-T', file, putUrl]),
    ];
    const gets = [() => timed(raw, times.rawGet, [rawUrl]), () => timed(s3, times.s3Get, [getUrl])];
    // Odd rounds go ours-first, so neither side always runs right after the other's page-cache churn.
    if (round % 2 === 1) {
      puts.reverse();
      gets.reverse();
    }
    for (const step of [...puts, ...gets]) await step();
  }
  const s3Stats = await s3.stats();
  const rawStats = await raw.stats();
  sdk.destroy();
  await s3.stop();
  await raw.stop();
  return { bytes: BIG, times, s3Stats, rawStats };
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

type SmallRates = { put: Rate; get: Rate };

function smallTable(
  title: string,
  rows: { peer: string; ours: string },
  rates: { peer: SmallRates; ours: SmallRates; files: SmallRates },
): string {
  const f = (n: number) => n.toFixed(1);
  const c = (n: number) => n.toFixed(3);
  const r = (ours: number, theirs: number) => (ours / theirs).toFixed(2);
  const row = (name: string, x: SmallRates) =>
    `| ${name} | ${f(x.put.opsPerSecond)} | ${f(x.get.opsPerSecond)} | ${c(x.put.cpuMsPerOp)} | ${c(x.get.cpuMsPerOp)} |`;
  const { peer, ours, files } = rates;
  return `### 4 KiB objects, ${SMALL_OPS} ops at ${CONCURRENCY} concurrent, ${title}

| | PUT ops/s | GET ops/s | PUT server CPU ms/op | GET server CPU ms/op |
|---|---|---|---|---|
${row(rows.peer, peer)}
${row('Kindgi /s3, every object a file (fsync + rename + row per PUT: the earlier design)', files)}
${row(rows.ours, ours)}
| ratio, ours/s3rver (goal PUT ≥ 2, GET ≥ 3; CPU: s3rver/ours) | ${r(ours.put.opsPerSecond, peer.put.opsPerSecond)} | ${r(ours.get.opsPerSecond, peer.get.opsPerSecond)} | ${r(peer.put.cpuMsPerOp, ours.put.cpuMsPerOp)} | ${r(peer.get.cpuMsPerOp, ours.get.cpuMsPerOp)} |
`;
}

async function smallObjects(work: string): Promise<string> {
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
  const sdkRows = {
    peer: 's3rver 3.7.1 (SigV4 checked with its built-in key; no fsync)',
    ours: 'Kindgi /s3 (fs binding, durable before 200)',
  };
  return `${smallTable('@aws-sdk/client-s3 (keep-alive)', sdkRows, { peer: peerSmall, ours: oursSmall, files: filesSmall })}
${smallTable(
  'URLs presigned up front, sent with fetch (keep-alive)',
  { peer: 's3rver 3.7.1', ours: 'Kindgi /s3' },
  { peer: peerPresigned, ours: oursPresigned, files: filesPresigned },
)}`;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'kindgi-s3-bench-'));
  const loadBefore = loadavg()[0]!.toFixed(1);
  try {
    const file = join(work, 'big.bin');
    const out = createWriteStream(file);
    for (let written = 0; written < BIG; written += 1024 * 1024) out.write(randomBytes(1024 * 1024));
    await new Promise((resolve) => out.end(resolve));

    const big = bigReport(await bigObjects(work, file));
    const small = ONLY_BIG ? '' : await smallObjects(work);
    const date = new Date().toISOString();
    const report = `## Run of ${date.slice(0, 10)}${ONLY_BIG ? ' (big objects only, BENCH_ONLY=big)' : ''}

Command: \`${ONLY_BIG ? 'BENCH_ONLY=big ' : ''}pnpm --filter @kindgi/s3 bench\` (packages/s3/bench/s3-bench.ts). Date: ${date}.
Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}. Servers run in their own
processes on 127.0.0.1; ours uses the filesystem binding (@kindgi/blob-fs: objects up to 64 KiB inside SQLite,
concurrent PUTs committed together, one fsync per group; larger ones temp file, fsync, rename, SQLite row).
1-minute load average before/after: ${loadBefore} / ${loadavg()[0]!.toFixed(1)}. Server CPU is user + system time of the
server's process tree (/proc), per operation.

${big.section}
${small}`;
    process.stdout.write(report);
    // A profiled run is slowed by the profiler, and a dry one is a trial: neither is the benchmark's record.
    if (process.env.BENCH_PROFILE || process.env.BENCH_DRY) return;
    writeReport(join(here, '..', '..', '..', 'docs', 'benchmarks', 's3.md'), report);
    const recorded = recordBenchResult({
      group: 's3-big-objects',
      command: 'pnpm --filter @kindgi/s3 bench',
      ratios: big.ratios,
    });
    process.stdout.write(`\nratios recorded in ${recorded}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
