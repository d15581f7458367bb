// Statements PostgreSQL runs per waited run (`POST /v1/runs` with `options.wait`), by statement, counted with
// `pg_stat_statements` over a batch of runs against one `kindgi-server` on the test PostgreSQL. A diagnostic
// for the runs bench (runs-cpu.ts): where a run's PostgreSQL time goes.
//
//   pnpm --filter @kindgi/server... build && node --conditions=source --import tsx bench/run-statements.ts
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnUntilRecord } from '@kindgi/test-services/bench-kit';
import { startPostgres } from '@kindgi/test-services/postgres';
import { createPostgresPool } from '../src/index.js';

const SERVER_MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));
const PACK_DIR = fileURLToPath(new URL('../../example-pack', import.meta.url));
const RUNS = Number(process.env.BENCH_REQUESTS ?? 400);
const CONCURRENCY = 8;
const TOKEN = randomBytes(16).toString('hex');

async function startServer(dir: string, databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const config = {
    host: '127.0.0.1',
    port: 0,
    dataDir: join(dir, 'data'),
    docs: false,
    tokens: [{ token: TOKEN, tenantId: 'bench' }],
    packs: [{ dir: PACK_DIR, env: { ACME_API_BASE: 'https://cases.acme.invalid' } }],
    database: { url: databaseUrl },
  };
  writeFileSync(join(dir, 'kindgi.server.json'), JSON.stringify(config));
  // BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it exits (`node --cpu-prof`).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
  const { child, records } = await spawnUntilRecord(
    [...profile, SERVER_MAIN, '--config', join(dir, 'kindgi.server.json')],
    {
      ready: (seen) => seen.some((record) => record.event === 'listening'),
    },
  );
  const url = String(records.find((record) => record.event === 'listening')?.url);
  return { child, url };
}

async function runs(url: string, count: number): Promise<void> {
  let next = 0;
  const body = JSON.stringify({
    toolId: 'acme.format-citation',
    input: { source: 'Brown v. Board', page: 483 },
    options: { wait: true },
  });
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < count) {
        const response = await fetch(`${url}/v1/runs`, { method: 'POST', headers, body });
        const text = await response.text();
        if (response.status !== 201) throw new Error(`HTTP ${response.status}: ${text}`);
      }
    }),
  );
}

const postgres = await startPostgres();
const dir = mkdtempSync(join(tmpdir(), 'kindgi-run-statements-'));
let server: ChildProcess | undefined;
try {
  const admin = createPostgresPool({ url: postgres.url, max: 1 });
  await admin.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
  await admin.end();
  await postgres.restart();
  const databaseUrl = await postgres.createDatabase('bench_statements');
  const stats = createPostgresPool({ url: databaseUrl, max: 1 });
  await stats.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const started = await startServer(dir, databaseUrl);
  server = started.child;
  await runs(started.url, 100);
  await stats.query('SELECT pg_stat_statements_reset()');
  await runs(started.url, RUNS);
  const found = await stats.query<{ calls: string; ms: number; query: string }>(
    `SELECT calls, total_exec_time AS ms, query FROM pg_stat_statements
     WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY calls DESC`,
  );
  let total = 0;
  for (const row of found.rows) {
    total += Number(row.calls);
    const text = row.query.replace(/\s+/g, ' ').slice(0, 110);
    process.stdout.write(`${(Number(row.calls) / RUNS).toFixed(2).padStart(6)}  ${text}\n`);
  }
  process.stdout.write(`${(total / RUNS).toFixed(2).padStart(6)}  statements per run (${RUNS} runs)\n`);
  await stats.end();
} finally {
  if (server !== undefined) {
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
  await postgres.stop();
}
