// CPU time per run (`POST /v1/runs` with `options.wait`) and per tool call with an `Idempotency-Key`, summed over
// the API server and PostgreSQL, for the embedded store (SQLite) and the PostgreSQL one, in one run; a tool
// call without a key (no store involved) is the control. The pack service's CPU is the same work in both
// topologies and is left out. Writes docs/benchmarks/runs-postgres.md.
//
//   pnpm --filter @kindgi/server... build && pnpm --filter @kindgi/store-postgres bench
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres } from '@kindgi/test-services/postgres';
import { createPostgresPool } from '../src/index.js';

const SERVER_MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));
const PACK_DIR = fileURLToPath(new URL('../../example-pack', import.meta.url));
const REPORT = fileURLToPath(new URL('../../../docs/benchmarks/runs-postgres.md', import.meta.url));
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP = 150;
const CONCURRENCY = 8;
const TICK_MS = 10; // USER_HZ is 100 on Linux
const TOKEN = randomBytes(16).toString('hex');
const INPUT = { source: 'Brown v. Board', page: 483 };

/** utime + stime of a process (and, with `children`, of its reaped children), in clock ticks. */
function ticks(pid: number, children = false): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return (fields[11] ?? 0) + (fields[12] ?? 0) + (children ? (fields[13] ?? 0) + (fields[14] ?? 0) : 0);
}

/** The postmaster and every live backend; reaped backends count through the postmaster's children total. */
function postgresTicks(postmaster: number): number {
  let total = ticks(postmaster, true);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) total += ticks(Number(name));
    } catch {
      // Exited meanwhile: its time is in the postmaster's children total.
    }
  }
  return total;
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
  const child = spawn(process.execPath, [SERVER_MAIN, '--config', join(dir, 'kindgi.server.json')], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let pending = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
        const line = pending.slice(0, at);
        pending = pending.slice(at + 1);
        try {
          const record = JSON.parse(line) as { event?: string; url?: string };
          if (record.event === 'listening' && record.url) resolve(record.url);
        } catch {}
      }
    });
    child.once('exit', (code) => reject(new Error(`${label} server exited ${code}`)));
  });
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
  const serverBefore = ticks(server.child.pid as number);
  const pgBefore = postmaster === undefined ? 0 : postgresTicks(postmaster);
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await request(server.url, op, next++);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const perRequest = (delta: number) => (delta * TICK_MS * 1000) / count;
  return {
    serverUs: perRequest(ticks(server.child.pid as number) - serverBefore),
    pgUs: postmaster === undefined ? 0 : perRequest(postgresTicks(postmaster) - pgBefore),
    perSecond: count / seconds,
  };
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
    rows.push(
      `| ${op} | ${base.toFixed(0)} | ${server.toFixed(0)} + ${pg.toFixed(0)} = ${(server + pg).toFixed(0)} | ${((server + pg) / base).toFixed(2)}× (rounds ${ratios[0]?.toFixed(2)}–${ratios.at(-1)?.toFixed(2)}×) | ${median(a.map((x) => x.perSecond)).toFixed(0)} / ${median(b.map((x) => x.perSecond)).toFixed(0)} |`,
    );
  }
  const report = `# Runs and idempotency: CPU per request, PostgreSQL vs embedded

Command: \`pnpm --filter @kindgi/server... build && pnpm --filter @kindgi/store-postgres bench\`
(\`packages/store-postgres/bench/runs-cpu.ts\`). Date: ${new Date().toISOString().slice(0, 10)}, Node ${process.version},
${cpus().length} shared cores. ${ROUNDS} interleaved rounds of ${REQUESTS} requests per topology after ${WARMUP} warm-up
requests, ${CONCURRENCY} concurrent, against one \`kindgi-server\` per topology (the example pack as its child); figures
are the median round.

CPU time is utime + stime from \`/proc/<pid>/stat\` over each phase, per request: the server process, and for
PostgreSQL the postmaster with every backend (fsync off, as \`@kindgi/test-services/postgres\` starts it). The pack
service does the same work in both and is left out. \`run\` is \`POST /v1/runs\` with \`options.wait\` (enqueue,
claim, journal, finish, and the waiting request's re-read), \`keyed-call\` a tool call with a fresh
\`Idempotency-Key\` (hold, store, release), \`call\` a tool call without one (no store: the control).
Goal (issue 15): server + PostgreSQL ≤ 1.5× embedded.

| request | embedded server µs | shared: server + PostgreSQL µs | ratio | req/s embedded / shared |
| ------- | ------------------ | ------------------------------ | ----- | ----------------------- |
${rows.join('\n')}

Where a run's cost goes: it is four transactions in either topology (enqueue, claim with \`run.started\`,
finish with its terminal event, plus the waiting request's re-reads), about 14 statements in all. SQLite answers
them in process; PostgreSQL spends ≈ 120–150 µs of backend CPU on each, even as named (prepared) statements and
with a transition and its journal entry in one statement. On this shared machine the embedded baseline itself
moves by 1.6× between runs, so compare the rounds of one run.
`;
  writeFileSync(REPORT, report);
  process.stdout.write(report);
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await postgres.stop();
}
