// Throwaway A/B (not committed): the pre-change bundle against the post-change bundle and the raw echo,
// alternated per round (order rotated), CPU per request from /proc/<pid>/stat.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ECHO_BENCH_WORKLOAD, portFromLines, runPackBenchmark } from './driver.mjs';

const { token: TOKEN, schema, body } = ECHO_BENCH_WORKLOAD;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const DURATION = Number(process.env.BENCH_DURATION ?? 6);
const RATE = process.env.BENCH_RATE === undefined ? undefined : Number(process.env.BENCH_RATE);
const dir = mkdtempSync(join(tmpdir(), 'kindgi-ab-'));
mkdirSync(join(dir, 'tools'));
writeFileSync(join(dir, 'tools', 'echo.mjs'), 'export default function echo(input) { return input; }\n');
writeFileSync(join(dir, 'index.json'), JSON.stringify({ v: 1, packId: 'bench', packVersion: '1.0.0', artifactVersion: '20260101.1', publishedAt: '2026-01-01T00:00:00.000Z', tools: [{ id: 'bench.echo', input: schema, output: schema, modulePath: 'tools/echo.mjs' }], guardrails: [], agents: [], flows: [] }));
function start(args, env, stream, token) {
  const stdio = token === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe', 'pipe'];
  const child = spawn(process.execPath, args, { env, stdio });
  if (token !== undefined) child.stdio[3].end(token);
  child.stdout.resume();
  child.stderr.resume();
  return portFromLines(child[stream]).then((port) => ({ child, port }));
}
const cpu = (pid) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) / 100; };
const packArgs = (entry) => [entry, '--index', join(dir, 'index.json'), '--host', '127.0.0.1', '--token-fd', '3'];
const env = { PATH: process.env.PATH, PORT: '0', KINDGI_LOG_FORMAT: 'json', KINDGI_LOG_LEVEL: 'info' };
const targets = [
  { name: 'raw', ...(await start([fileURLToPath(new URL('./pack-service.mjs', import.meta.url)), '--raw-server'], { PATH: process.env.PATH }, 'stdout')), path: '/' },
  { name: 'before', ...(await start(packArgs(process.argv[2]), env, 'stderr', TOKEN)), path: '/v1/invoke', token: TOKEN },
  { name: 'after', ...(await start(packArgs(process.argv[3]), env, 'stderr', TOKEN)), path: '/v1/invoke', token: TOKEN },
];
try {
  for (const t of targets) await runPackBenchmark({ url: `http://127.0.0.1:${t.port}${t.path}`, token: t.token, body, durationSeconds: 2 });
  const sums = Object.fromEntries(targets.map((t) => [t.name, { cpu: 0, n: 0, per: [] }]));
  for (let r = 0; r < ROUNDS; r++) {
    const order = targets.map((_, i) => targets[(i + r) % targets.length]);
    for (const t of order) {
      const c0 = cpu(t.child.pid);
      const f = await runPackBenchmark({ url: `http://127.0.0.1:${t.port}${t.path}`, token: t.token, body, durationSeconds: DURATION, rate: RATE });
      const used = cpu(t.child.pid) - c0;
      sums[t.name].cpu += used; sums[t.name].n += f.totalRequests; sums[t.name].per.push(((used * 1e6) / f.totalRequests).toFixed(1));
    }
  }
  const us = (name) => (sums[name].cpu * 1e6) / sums[name].n;
  for (const t of targets) console.log(`${t.name}: ${us(t.name).toFixed(1)} µs/req (rounds: ${sums[t.name].per.join(', ')})`);
  console.log(`ratio raw/before ${(us('raw') / us('before')).toFixed(3)}, raw/after ${(us('raw') / us('after')).toFixed(3)}; after/before ${(us('after') / us('before')).toFixed(3)}; load ${loadavg().map((n) => n.toFixed(1)).join(' ')}; ${ROUNDS} rounds × ${DURATION} s${RATE ? ` at ${RATE} req/s` : ''}`);
} finally {
  for (const t of targets) t.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
