// CPU time per 4 KiB S3 PUT and GET, summed over the API server and PostgreSQL, for two topologies in one
// run: the embedded one (SQLite + files) and PostgreSQL + an S3 store (moto, whose own CPU is reported apart:
// it is a slow test double, not what a deployment runs). Writes docs/benchmarks/blob-s3.md.
//
//   pnpm --filter @kindgi/server... build && pnpm --filter @kindgi/blob-s3 bench
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createPostgresPool } from '@kindgi/store-postgres';
import { recordBenchResult, spawnUntilRecord, treeCpuMicros } from '@kindgi/test-services/bench-kit';
import { startMotoServer } from '@kindgi/test-services/moto';
import { startPostgres } from '@kindgi/test-services/postgres';

const SERVER_MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));
const REPORT = fileURLToPath(new URL('../../../docs/benchmarks/blob-s3.md', import.meta.url));
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1500);
const WARMUP = 200;
const CONCURRENCY = 8;
const COMMAND = 'pnpm --filter @kindgi/server... build && pnpm --filter @kindgi/blob-s3 bench';

interface Server {
  child: ChildProcess;
  s3: S3Client;
  /** The S3 surface at `/` (its own port) and the key pair for bucket `artifacts`. */
  s3Url: string;
  accessKeyId: string;
  secretKey: string;
  stop(): Promise<void>;
}

async function startServer(label: string, extra: Record<string, unknown>): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), `kindgi-bench-${label}-`));
  const accessKeyId = `BENCH${randomBytes(6).toString('hex').toUpperCase()}`;
  const secretKey = randomBytes(20).toString('hex');
  const config = {
    host: '127.0.0.1',
    port: 0,
    dataDir: join(dir, 'data'),
    docs: false,
    packs: [],
    s3: { port: 0 },
    tokens: [{ token: randomBytes(16).toString('hex'), tenantId: 'bench' }],
    s3Credentials: [{ accessKeyId, secretKey, tenantId: 'bench', bucket: 'artifacts' }],
    ...extra,
  };
  writeFileSync(join(dir, 'kindgi.server.json'), JSON.stringify(config));
  const { child, records } = await spawnUntilRecord([SERVER_MAIN, '--config', join(dir, 'kindgi.server.json')], {
    ready: (seen) => seen.some((record) => record.event === 'listening' && record.url && record.s3Url),
  });
  const listening = records.find((record) => record.event === 'listening') ?? {};
  const [url, s3Url] = [String(listening.url), String(listening.s3Url)];
  const s3 = new S3Client({
    endpoint: `${url}/s3`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey: secretKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    child,
    s3,
    s3Url,
    accessKeyId,
    secretKey,
    async stop() {
      s3.destroy();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function inParallel(count: number, run: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < count; i = next++) await run(i);
    }),
  );
}

const body = randomBytes(4096);

interface Topology {
  server: Server;
  /** Where its keys start, so topologies sharing a store never overwrite each other's. */
  offset: number;
  /** CPU µs so far of each process tree the topology runs on (`treeCpuMicros`). */
  counters: () => Record<string, number>;
}

interface Phase {
  perRequestUs: Record<string, number>;
  opsPerSecond: number;
}

const ROUNDS = 5;

/** A Markdown table padded as the formatter (Biome) writes it, so a fresh report passes the lint. */
function markdownTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((cells) => [...cells[column]!].length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(rows[0]!), line(widths.map((width) => '-'.repeat(width))), ...rows.slice(1).map(line)].join('\n');
}

/**
 * PUTs then GETs on every topology, interleaved in rounds (topology A, B, C, then A again…), so a change in
 * the machine's load during the run weighs on every topology alike.
 */
async function measureAll(topologies: Record<string, Topology>): Promise<Record<string, { put: Phase; get: Phase }>> {
  const perRound = Math.floor(REQUESTS / ROUNDS);
  const put = (t: Topology, i: number) =>
    t.server.s3
      .send(new PutObjectCommand({ Bucket: 'artifacts', Key: `k/${t.offset + i}`, Body: body }))
      .then(() => {});
  const get = (t: Topology, i: number) =>
    t.server.s3
      .send(new GetObjectCommand({ Bucket: 'artifacts', Key: `k/${t.offset + i}` }))
      .then((answer) => answer.Body!.transformToByteArray())
      .then(() => {});
  for (const t of Object.values(topologies)) await inParallel(WARMUP, (i) => put(t, REQUESTS + i));
  const totals: Record<string, Record<'put' | 'get', { micros: Record<string, number>; ms: number }>> = {};
  for (const [name, t] of Object.entries(topologies)) {
    const zero = () => Object.fromEntries(Object.keys(t.counters()).map((k) => [k, 0]));
    totals[name] = { put: { micros: zero(), ms: 0 }, get: { micros: zero(), ms: 0 } };
  }
  for (const op of ['put', 'get'] as const) {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, t] of Object.entries(topologies)) {
        const before = t.counters();
        const started = process.hrtime.bigint();
        await inParallel(perRound, (i) => (op === 'put' ? put : get)(t, round * perRound + i));
        const total = totals[name]![op];
        total.ms += Number(process.hrtime.bigint() - started) / 1e6;
        const after = t.counters();
        for (const key of Object.keys(before)) total.micros[key]! += after[key]! - before[key]!;
      }
    }
  }
  const count = perRound * ROUNDS;
  const phase = (total: { micros: Record<string, number>; ms: number }): Phase => ({
    perRequestUs: Object.fromEntries(Object.entries(total.micros).map(([key, value]) => [key, value / count])),
    opsPerSecond: (count / total.ms) * 1000,
  });
  return Object.fromEntries(
    Object.entries(totals).map(([name, total]) => [name, { put: phase(total.put), get: phase(total.get) }]),
  );
}

/**
 * The report: `title`, the latest run, then every earlier one under "Earlier runs" (kept as they were, the
 * newest first), so figures from before a change stay beside those after it.
 */
function withEarlierRuns(file: string, title: string, latest: string): string {
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  let earlier = previous.replace(/^# .*\n+/, '').replace(/^## Earlier runs\n+/m, '');
  earlier = earlier.replace(/^## Latest run \((.+)\)$/m, '### Run of $1');
  if (earlier.trim() !== '' && !earlier.startsWith('### ')) earlier = `### An earlier run\n\n${earlier}`;
  return `${title}\n\n${latest}${earlier.trim() === '' ? '' : `\n## Earlier runs\n\n${earlier.trimEnd()}\n`}`;
}

const [postgres, moto] = await Promise.all([startPostgres(), startMotoServer()]);
const databaseUrl = await postgres.createDatabase('bench_blobs');
const admin = new S3Client({
  endpoint: moto.endpoint,
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: { accessKeyId: 'bench', secretAccessKey: 'bench-secret' },
});
await admin.send(new CreateBucketCommand({ Bucket: 'bench-blobs' }));
admin.destroy();
const probe = createPostgresPool({ url: postgres.url, max: 1 });
const backend = (await probe.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
const postmaster = Number(readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
await probe.end();

const s3Blobs = (endpoint: string, bucket: string, accessKeyId: string, secretAccessKey: string) => ({
  database: { url: databaseUrl },
  blobs: { kind: 's3', endpoint, region: 'us-east-1', bucket, accessKeyId, secretAccessKey, forcePathStyle: true },
});
const embedded = await startServer('embedded', {});
const shared = await startServer('shared', s3Blobs(moto.endpoint, 'bench-blobs', 'bench', 'bench-secret'));
// A second Kindgi as the object store: an HTTP/1.1 keep-alive S3 server, unlike moto's werkzeug.
const store = await startServer('store', {});
const overKindgi = await startServer('over-kindgi', {
  ...s3Blobs(store.s3Url, 'artifacts', store.accessKeyId, store.secretKey),
  blobs: {
    ...s3Blobs(store.s3Url, 'artifacts', store.accessKeyId, store.secretKey).blobs,
    prefix: 'over-kindgi/',
  },
});
try {
  const results = await measureAll({
    embedded: { server: embedded, offset: 0, counters: () => ({ server: treeCpuMicros(embedded.child.pid!) }) },
    shared: {
      server: shared,
      offset: 0,
      counters: () => ({
        server: treeCpuMicros(shared.child.pid!),
        // The backends are the postmaster's children, not the server's: a tree of their own.
        postgres: treeCpuMicros(postmaster),
        moto: treeCpuMicros(moto.pid),
      }),
    },
    overKindgi: {
      server: overKindgi,
      offset: 1_000_000,
      counters: () => ({
        server: treeCpuMicros(overKindgi.child.pid!),
        postgres: treeCpuMicros(postmaster),
        moto: treeCpuMicros(store.child.pid!),
      }),
    },
  });
  const sum = (r: Record<string, number>) => (r.server ?? 0) + (r.postgres ?? 0);
  const row = (name: string, op: 'put' | 'get', topology: 'shared' | 'overKindgi') => {
    const e = results.embedded![op];
    const s = results[topology]![op];
    const us = (value: number) => value.toFixed(0);
    return [
      `${name}, ${topology === 'shared' ? 'moto' : 'kindgi-server'} store`,
      us(e.perRequestUs.server!),
      `${us(s.perRequestUs.server!)} + ${us(s.perRequestUs.postgres!)} = ${us(sum(s.perRequestUs))}`,
      `${(sum(s.perRequestUs) / sum(e.perRequestUs)).toFixed(2)}×`,
      us(s.perRequestUs.moto!),
      `${e.opsPerSecond.toFixed(0)} / ${s.opsPerSecond.toFixed(0)}`,
    ];
  };
  const header = [
    '4 KiB op',
    'embedded server µs',
    'shared: server + PostgreSQL µs',
    'ratio',
    'store µs (apart)',
    'ops/s embedded / shared',
  ];
  const table = markdownTable([
    header,
    row('PUT', 'put', 'shared'),
    row('GET', 'get', 'shared'),
    row('PUT', 'put', 'overKindgi'),
    row('GET', 'get', 'overKindgi'),
  ]);
  const ratioOf = (op: 'put' | 'get') =>
    sum(results.shared![op].perRequestUs) / sum(results.embedded![op].perRequestUs);
  const detail = (op: 'put' | 'get') => {
    const s = results.shared![op].perRequestUs;
    const share = ((s.postgres! / sum(s)) * 100).toFixed(0);
    return `server ${s.server!.toFixed(0)} + PostgreSQL ${s.postgres!.toFixed(0)} µs (PostgreSQL ${share}%) vs embedded ${results.embedded![op].perRequestUs.server!.toFixed(0)} µs; moto ${s.moto!.toFixed(0)} µs apart`;
  };
  recordBenchResult({
    group: 'shared-storage-blobs',
    command: COMMAND,
    ratios: (['put', 'get'] as const).map((op) => ({
      name: `4 KiB ${op.toUpperCase()}, PostgreSQL + S3 vs embedded`,
      value: ratioOf(op),
      goal: 1.5,
      direction: 'atMost' as const,
      detail: detail(op),
    })),
  });
  const latest = `## Latest run (${new Date().toISOString().slice(0, 10)})

Command: \`${COMMAND}\`
(\`packages/blob-s3/bench/topology-cpu.ts\`). Node ${process.version}, ${cpus().length} shared cores, load average
${loadavg()[0]!.toFixed(1)} at the end. ${REQUESTS} PUTs then ${REQUESTS} GETs per topology after ${WARMUP} warm-up PUTs,
${CONCURRENCY} concurrent, interleaved in ${ROUNDS} rounds (each topology in turn, so load changes weigh on all alike),
through \`@aws-sdk/client-s3\` against \`/s3\` of one \`kindgi-server\` per topology, all in this run.

CPU time is \`treeCpuMicros\` (\`@kindgi/test-services/bench-kit\`: utime + stime from \`/proc\` over a process tree,
reaped children included) over each phase, per request: the server's tree, and PostgreSQL's (the postmaster and
every backend). The object store's CPU is reported apart: moto, or a second \`kindgi-server\` (embedded storage,
fsync per object), whose S3 surface keeps connections alive where moto's werkzeug server does not. Goal: server
+ PostgreSQL ≤ 1.5× embedded. Objects up to 64 KiB of a known length are kept in their PostgreSQL row
(migration \`008_inline_blobs.sql\`), as the embedded topology keeps them in SQLite: a 4 KiB PUT or GET is one
statement and never reaches the object store.

${table}

The embedded PUT commits to SQLite (grouped commits, fsync); the shared topology's durability is PostgreSQL's
commit (fsync off in the test cluster, as \`@kindgi/test-services/postgres\` starts it).
`;
  const report = withEarlierRuns(REPORT, '# blob-s3: CPU per 4 KiB S3 request, PostgreSQL + S3 vs embedded', latest);
  writeFileSync(REPORT, report);
  process.stdout.write(report);
} finally {
  await Promise.all([embedded.stop(), shared.stop(), overKindgi.stop()]);
  await store.stop();
  await Promise.all([moto.stop(), postgres.stop()]);
}
