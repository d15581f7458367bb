// The Python pack service's echo tool driven exactly as the TypeScript service's benchmark drives its own
// (packages/pack-service/bench/driver.mjs: same body, schemas, token, autocannon driver), both services in
// the same run, each pinned to one core with taskset, rounds alternating so a load swing on the shared
// machine hits both. The Python echo runs twice: a sync handler (the worker-thread hop) and an async one.
//
//   pnpm --filter @kindgi/pack-service build && node sdks/python/bench/bench.mjs
//
// BENCH_PYTHON (default .ci/venv/bin/python, with the SDK installed), BENCH_CPU (default 0), and the
// driver's BENCH_DURATION / BENCH_CONNECTIONS / BENCH_ROUNDS / BENCH_RATE.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const { runPackBenchmark, ECHO_BENCH_WORKLOAD, benchSettings, portFromLines } = await import(
  join(repoRoot, 'packages/pack-service/bench/driver.mjs')
);
const { token: TOKEN, schema, body } = ECHO_BENCH_WORKLOAD;
const { duration, connections, rounds: ROUNDS, rate } = benchSettings();
const python = process.env.BENCH_PYTHON ?? join(repoRoot, '.ci/venv/bin/python');
const cpu = process.env.BENCH_CPU ?? '0';

function index(modulePath) {
  const tool = { id: 'bench.echo', input: schema, output: schema, modulePath };
  const base = { v: 1, packId: 'bench', packVersion: '1.0.0', artifactVersion: '20260101.1' };
  return { ...base, publishedAt: '2026-01-01T00:00:00.000Z', tools: [tool], guardrails: [], agents: [], flows: [] };
}

function writePacks(dir) {
  const node = join(dir, 'node');
  mkdirSync(join(node, 'tools'), { recursive: true });
  writeFileSync(join(node, 'tools', 'echo.mjs'), 'export default function echo(input) { return input; }\n');
  writeFileSync(join(node, 'index.json'), JSON.stringify(index('tools/echo.mjs')));
  const py = join(dir, 'python');
  mkdirSync(join(py, 'tools'), { recursive: true });
  const define = (name, def) =>
    `from kindgi.pack import define_tool\n\n${def}\n\n${name} = define_tool(id="bench.echo", description="Echo.", input=${JSON.stringify(schema).replaceAll('false', 'False')}, output=${JSON.stringify(schema).replaceAll('false', 'False')}, handler=echo)\n`;
  writeFileSync(join(py, 'tools', 'echo_sync.py'), define('echo_sync', 'def echo(value, ctx):\n    return value'));
  writeFileSync(
    join(py, 'tools', 'echo_async.py'),
    define('echo_async', 'async def echo(value, ctx):\n    return value'),
  );
  writeFileSync(join(py, 'index-sync.json'), JSON.stringify(index('tools/echo_sync.py')));
  writeFileSync(join(py, 'index-async.json'), JSON.stringify(index('tools/echo_async.py')));
  return { node, py };
}

/** Starts a service on one core, the token on descriptor 3 (no re-exec to keep it out of the environment). */
function startService(argv, env) {
  const child = spawn('taskset', ['-c', cpu, ...argv, '--host', '127.0.0.1', '--token-fd', '3'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  child.stdio[3].end(TOKEN);
  child.stdout.resume();
  return new Promise((resolve, reject) => {
    portFromLines(child.stderr, (record) => record.event === 'listening').then((port) => resolve({ child, port }));
    child.once('exit', (code) => reject(new Error(`${argv.join(' ')} exited with ${code} before listening`)));
  });
}

// CPU time (user + system, in clock ticks of 10 ms) a process has used.
function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** p50/p99 of `count` calls made one after another on one keep-alive connection, in microseconds. */
async function oneCaller(port, count = 3000) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const call = () =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/v1/invoke', method: 'POST', agent }, (res) =>
        res.on('data', () => {}).on('end', resolve),
      );
      req.setHeader('content-type', 'application/json');
      req.setHeader('kindgi-pack-token', TOKEN);
      req.on('error', reject);
      req.end(body);
    });
  for (let i = 0; i < 200; i++) await call();
  const times = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await call();
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  agent.destroy();
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(count / 2)], p99: times[Math.floor(count * 0.99)] };
}

async function measure(target) {
  const single = await oneCaller(target.port);
  const before = cpuTicks(target.child.pid);
  const url = `http://127.0.0.1:${target.port}/v1/invoke`;
  const figures = await runPackBenchmark({ url, token: TOKEN, body, connections, durationSeconds: duration, rate });
  const cpuUs = ((cpuTicks(target.child.pid) - before) * 10_000) / Math.max(1, figures.totalRequests);
  return { ...figures, single, cpuUs };
}

const row = (round, name, f) =>
  `| ${round} | ${name} | ${Math.round(f.single.p50)} | ${Math.round(f.single.p99)} | ${Math.round(f.requestsPerSecond)} | ${Math.round(f.cpuUs)} | ${f.latencyP50Ms} | ${f.latencyP99Ms} | ${f.failures} |`;

const dir = mkdtempSync(join(tmpdir(), 'kindgi-python-bench-'));
const children = [];
try {
  const packs = writePacks(dir);
  const env = {
    PATH: process.env.PATH,
    PORT: '0',
    KINDGI_LOG_FORMAT: 'json',
    KINDGI_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  };
  const serviceMain = join(repoRoot, 'packages/pack-service/dist/main.js');
  const targets = [
    ['typescript', [process.execPath, serviceMain, '--index', join(packs.node, 'index.json')]],
    ['python (sync handler)', [python, '-m', 'kindgi.pack', 'serve', '--index', join(packs.py, 'index-sync.json')]],
    ['python (async handler)', [python, '-m', 'kindgi.pack', 'serve', '--index', join(packs.py, 'index-async.json')]],
  ];
  const started = [];
  for (const [name, argv] of targets) {
    const service = await startService(argv, env);
    children.push(service.child);
    started.push([name, service]);
  }
  console.log(
    `taskset -c ${cpu}; ${connections} connections, ${duration} s per round${rate ? `, ${rate} req/s offered` : ''}`,
  );
  console.log(
    '| round | service | 1 caller p50 µs | 1 caller p99 µs | req/s | CPU µs/call | p50 ms | p99 ms | failures |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, service] of started) console.log(row(round, name, await measure(service)));
  }
} finally {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
