// CPU time per run (`POST /v1/runs` with `options.wait`) and per tool call with an `Idempotency-Key`, summed over
// the API server and PostgreSQL, for the embedded store (SQLite) and the PostgreSQL one, in one run; a tool
// call without a key (no store involved) is the control. The pack service's CPU is the same work in both
// topologies and is left out. Writes docs/benchmarks/runs-postgres.md.
//
//   pnpm --filter @kindgi/server... build && pnpm --filter @kindgi/store-postgres bench
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type BenchRatio,
  recordBenchResult,
  spawnUntilRecord,
  TICK_MICROS,
  treeCpuMicros,
} from '@kindgi/test-services/bench-kit';
import { startPostgres } from '@kindgi/test-services/postgres';
import { createPostgresPool } from '../src/index.js';

const SERVER_MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));
const PACK_DIR = fileURLToPath(new URL('../../example-pack', import.meta.url));
const REPORT = fileURLToPath(new URL('../../../docs/benchmarks/runs-postgres.md', import.meta.url));
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP = 150;
const CONCURRENCY = 8;
const COMMAND = 'pnpm --filter @kindgi/server... build && pnpm --filter @kindgi/store-postgres bench';
const TOKEN = randomBytes(16).toString('hex');
const INPUT = { source: 'Brown v. Board', page: 483 };

/**
 * CPU µs of the server process alone (its pack service, a child, left out): the figure earlier reports gave,
 * beside the tree's.
 */
function processCpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MICROS;
}

interface Server {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

async function startServer(label: string, extra: Record<string, unknown>): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), `kindgi-runs-bench-${label}-`));
  const config = {
    host: '127.0.0.1',
    port: 0,
    dataDir: join(dir, 'data'),
    docs: false,
    tokens: [{ token: TOKEN, tenantId: 'bench' }],
    packs: [{ dir: PACK_DIR, env: { ACME_API_BASE: 'https://cases.acme.invalid' } }],
    ...extra,
  };
  writeFileSync(join(dir, 'kindgi.server.json'), JSON.stringify(config));
  const { child, records } = await spawnUntilRecord([SERVER_MAIN, '--config', join(dir, 'kindgi.server.json')], {
    ready: (seen) => seen.some((record) => record.event === 'listening'),
  });
  const url = String(records.find((record) => record.event === 'listening')?.url);
  return {
    child,
    url,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

type Op = 'run' | 'keyed-call' | 'call';

async function request(url: string, op: Op, n: number): Promise<void> {
  const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  let path = '/v1/tools/acme.format-citation/invoke';
  let body: unknown = { input: INPUT };
  if (op === 'keyed-call') headers['idempotency-key'] = `bench-${n}-${randomBytes(6).toString('hex')}`;
  if (op === 'run') {
    path = '/v1/runs';
    body = { toolId: 'acme.format-citation', input: INPUT, options: { wait: true } };
  }
  const response = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${op}: HTTP ${response.status}: ${text}`);
}

async function phase(server: Server, postmaster: number | undefined, op: Op, count: number) {
  let next = 0;
  const pid = server.child.pid as number;
  const before = { tree: treeCpuMicros(pid), own: processCpuMicros(pid) };
  // The backends are the postmaster's children, not the server's: a tree of their own.
  const pgBefore = postmaster === undefined ? 0 : treeCpuMicros(postmaster);
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await request(server.url, op, next++);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return {
    serverUs: (treeCpuMicros(pid) - before.tree) / count,
    ownUs: (processCpuMicros(pid) - before.own) / count,
    pgUs: postmaster === undefined ? 0 : (treeCpuMicros(postmaster) - pgBefore) / count,
    perSecond: count / seconds,
  };
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

const postgres = await startPostgres();
const servers: Server[] = [];
try {
  const databaseUrl = await postgres.createDatabase('bench_runs');
  const probe = createPostgresPool({ url: postgres.url, max: 1 });
  const backend = (await probe.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid as number;
  const postmaster = Number(readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
  await probe.end();
  const embedded = await startServer('embedded', {});
  servers.push(embedded);
  const shared = await startServer('postgres', { database: { url: databaseUrl } });
  servers.push(shared);
  const rows: string[] = [];
  const recorded: BenchRatio[] = [];
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] as number;
  for (const op of ['run', 'keyed-call', 'call'] as const) {
    for (const server of [embedded, shared]) await phase(server, undefined, op, WARMUP);
    // Rounds interleave the topologies so both see the same machine load; each figure is the median round.
    const a: Awaited<ReturnType<typeof phase>>[] = [];
    const b: Awaited<ReturnType<typeof phase>>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      a.push(await phase(embedded, undefined, op, REQUESTS));
      b.push(await phase(shared, postmaster, op, REQUESTS));
    }
    const base = median(a.map((x) => x.serverUs));
    const server = median(b.map((x) => x.serverUs));
    const pg = median(b.map((x) => x.pgUs));
    const ratios = a.map((x, i) => ((b[i]?.serverUs ?? 0) + (b[i]?.pgUs ?? 0)) / x.serverUs).sort((x, y) => x - y);
    const ratio = (server + pg) / base;
    // The server process alone (its pack service left out), as earlier reports measured it.
    const ownRatio = (median(b.map((x) => x.ownUs)) + pg) / median(a.map((x) => x.ownUs));
    rows.push(
      `| ${op} | ${base.toFixed(0)} | ${server.toFixed(0)} + ${pg.toFixed(0)} = ${(server + pg).toFixed(0)} | ${ratio.toFixed(2)}× (rounds ${ratios[0]?.toFixed(2)}–${ratios.at(-1)?.toFixed(2)}×) | ${ownRatio.toFixed(2)}× | ${median(a.map((x) => x.perSecond)).toFixed(0)} / ${median(b.map((x) => x.perSecond)).toFixed(0)} |`,
    );
    if (op !== 'call') {
      recorded.push({
        name: `${op}, PostgreSQL vs embedded`,
        value: ratio,
        goal: 1.5,
        direction: 'atMost',
        detail: `server ${server.toFixed(0)} + PostgreSQL ${pg.toFixed(0)} µs (PostgreSQL ${((pg / (server + pg)) * 100).toFixed(0)}%) vs embedded ${base.toFixed(0)} µs; server process alone ${ownRatio.toFixed(2)}×`,
      });
    }
  }
  recordBenchResult({ group: 'shared-storage-runs', command: COMMAND, ratios: recorded });
  const latest = `## Latest run (${new Date().toISOString().slice(0, 10)})

Command: \`${COMMAND}\`
(\`packages/store-postgres/bench/runs-cpu.ts\`). Node ${process.version}, ${cpus().length} shared cores, load average
${loadavg()[0]?.toFixed(1)} at the end. ${ROUNDS} interleaved rounds of ${REQUESTS} requests per topology after ${WARMUP}
warm-up requests, ${CONCURRENCY} concurrent, against one \`kindgi-server\` per topology (the example pack as its
child); figures are the median round.

CPU time is \`treeCpuMicros\` (\`@kindgi/test-services/bench-kit\`: utime + stime from \`/proc\` over a process tree,
reaped children included) over each phase, per request: the server's tree (its pack service included, the same
work in both topologies), and PostgreSQL's (the postmaster and every backend; fsync off, as
\`@kindgi/test-services/postgres\` starts it). "Process alone" leaves the pack service out, as earlier runs did.
\`run\` is \`POST /v1/runs\` with \`options.wait\` (enqueue, claim, journal, finish; the waiting request takes
the end from the executor that recorded it), \`keyed-call\` a tool call with a fresh \`Idempotency-Key\` (hold, store, release), \`call\` a tool call
without one (no store: the control). Goal (issues 15, 39): server + PostgreSQL ≤ 1.5× embedded.

| request | embedded server µs | shared: server + PostgreSQL µs | ratio | process alone | req/s embedded / shared |
| ------- | ------------------ | ------------------------------ | ----- | ------------- | ----------------------- |
${rows.join('\n')}

A run's transitions on PostgreSQL are five statements and no explicit transaction: the enqueue is one
(\`kindgi_run_enqueue\`, migration 009: the pack's lock, the queue limits and the insert), a claim reads its
candidate without a lock and claims it only while the row is the version it read (\`xmin\`), with its journal
entry and the tenant's turn in the same statement, and a finish does the same (read, conditional save with its
terminal event). Nothing reads the run back: a change notice carries the run's new status, so the waiting
request and the executor's lease keeper skip the notices that cannot end their wait (the claim's \`running\`),
and an executor hands the end it recorded to a request waiting in its process: on 2026-12-06
\`pg_stat_statements\` counted 5.07 statements per waited run (\`bench/run-statements.ts\`; 8.07 before that
change, 2.99 of them reads of the run).
Before the transitions shrank, the same run took about 15 round trips in three transactions.
`;
  const report = withEarlierRuns(REPORT, '# Runs and idempotency: CPU per request, PostgreSQL vs embedded', latest);
  writeFileSync(REPORT, report);
  process.stdout.write(report);
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await postgres.stop();
}
