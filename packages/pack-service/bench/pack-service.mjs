import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordBenchResult, treeCpuMicros } from '@kindgi/test-services/bench-kit';
import { benchSettings, ECHO_BENCH_WORKLOAD, portFromLines, runPackBenchmark, startRawEchoServer } from './driver.mjs';

// `pnpm --filter @kindgi/pack-service bench` (after a build): the pack service's echo tool (input and output schemas) against a raw node:http JSON
// echo server, the same service at log level `warn` (no `call` record: what the record costs) and with
// KINDGI_PACK_SERVICE_METRICS=on, each in its own process, driven by autocannon from this one.
const { token: TOKEN, schema: message, body } = ECHO_BENCH_WORKLOAD;
const { duration, connections, rounds: ROUNDS, rate: asked } = benchSettings();
// The goal is set at an equal offered load (issue 39): 6,000 req/s unless `BENCH_RATE` says otherwise;
// `BENCH_RATE=` (empty) drives every target as fast as it answers.
const rate = process.env.BENCH_RATE === undefined ? 6000 : asked;

function writePack() {
  const dir = mkdtempSync(join(tmpdir(), 'kindgi-pack-bench-'));
  mkdirSync(join(dir, 'tools'));
  writeFileSync(join(dir, 'tools', 'echo.mjs'), 'export default function echo(input) { return input; }\n');
  const index = {
    v: 1,
    packId: 'bench',
    packVersion: '1.0.0',
    artifactVersion: '20260101.1',
    publishedAt: '2026-01-01T00:00:00.000Z',
    tools: [{ id: 'bench.echo', input: message, output: message, modulePath: 'tools/echo.mjs' }],
    guardrails: [],
    agents: [],
    flows: [],
  };
  writeFileSync(join(dir, 'index.json'), JSON.stringify(index));
  return dir;
}

/** Starts a child and resolves with its port, read from the first line `pick` accepts. */
function startChild(args, env, stream, token) {
  // The token goes on descriptor 3, as the supervisor passes it: with it in the environment the service
  // would re-execute itself to keep it from pack code, and /proc/<pid>/stat would time the wrong process.
  const stdio = token === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe', 'pipe'];
  const child = spawn(process.execPath, args, { env, stdio });
  if (token !== undefined) child.stdio[3].end(token);
  child.stdout?.resume();
  child.stderr?.resume();
  return new Promise((resolve, reject) => {
    portFromLines(child[stream]).then((port) => resolve({ child, port }));
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before listening`)));
  });
}

function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakRssMb: Math.round(kb('VmHWM') / 1024) };
}

/** Runs one target and adds the server's CPU time per request (its whole process tree, from /proc). */
async function measure(options, pid) {
  const before = treeCpuMicros(pid);
  const figures = await runPackBenchmark(options);
  const cpuUs = (treeCpuMicros(pid) - before) / Math.max(1, figures.totalRequests);
  return { ...figures, cpuUs };
}

function row(round, name, f) {
  return `| ${round} | ${name} | ${Math.round(f.requestsPerSecond)} | ${f.latencyP50Ms} | ${f.latencyP99Ms} | ${f.latencyMaxMs} | ${f.failures} | ${f.cpuUs.toFixed(1)} |`;
}

const COMMAND = 'pnpm --filter @kindgi/pack-service build && BENCH_RATE=6000 pnpm --filter @kindgi/pack-service bench';

/** Starts the pack service on the bench pack (token on descriptor 3) with the given log level and env. */
function startPack(dir, level, extraEnv = {}) {
  const entry = fileURLToPath(new URL('../dist/main.js', import.meta.url));
  const args = [entry, '--index', join(dir, 'index.json'), '--host', '127.0.0.1', '--token-fd', '3'];
  const env = { PATH: process.env.PATH, PORT: '0', KINDGI_LOG_FORMAT: 'json', KINDGI_LOG_LEVEL: level, ...extraEnv };
  return startChild(args, env, 'stderr', TOKEN);
}

/** Starts every target: the raw echo, the service at the chosen level, at `warn`, and with metrics on. */
async function startTargets(dir, children) {
  const level = process.env.BENCH_LOG_LEVEL ?? 'info';
  const raw = await startChild([fileURLToPath(import.meta.url), '--raw-server'], { PATH: process.env.PATH }, 'stdout');
  children.push(raw.child);
  const started = [{ key: 'raw', name: 'raw node:http JSON echo', ...raw, url: `http://127.0.0.1:${raw.port}/` }];
  const packs = [
    { key: 'pack', name: `pack service echo tool (${level})`, level, env: {} },
    // The same service without the `call` record (issue 39): what the record costs.
    { key: 'warn', name: 'pack service echo tool (warn)', level: 'warn', env: {} },
    // Prometheus metrics on (issue 19): the per-call cost of counting.
    {
      key: 'metrics',
      name: `pack service echo tool (${level}), metrics on`,
      level,
      env: { KINDGI_PACK_SERVICE_METRICS: 'on' },
    },
  ];
  for (const pack of packs) {
    const target = await startPack(dir, pack.level, pack.env);
    children.push(target.child);
    started.push({ ...pack, ...target, url: `http://127.0.0.1:${target.port}/v1/invoke`, token: TOKEN });
  }
  return started;
}

/** `rounds` rounds over every target, the order rotated per round so none always runs first or last. */
async function runRounds(targets) {
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const figures = {};
    for (let i = 0; i < targets.length; i++) {
      const target = targets[(round + i) % targets.length];
      const run = { url: target.url, token: target.token, body, connections, durationSeconds: duration, rate };
      figures[target.key] = await measure(run, target.child.pid);
    }
    rounds.push(figures);
  }
  return rounds;
}

function report(targets, rounds) {
  const mean = (key) => rounds.reduce((sum, r) => sum + r[key].cpuUs, 0) / rounds.length;
  const cpu = Object.fromEntries(targets.map((t) => [t.key, mean(t.key)]));
  const ratio = cpu.raw / cpu.pack;
  console.log(
    `Pack service benchmark, ${new Date().toISOString()}, ${connections} connections${rate === undefined ? '' : ` at ${rate} req/s offered`}, ${ROUNDS} rounds of ${duration} s per target`,
  );
  const load = loadavg().map((n) => n.toFixed(1));
  console.log(
    `Node ${process.version}, ${cpus().length} CPUs, load average ${load.join(' ')} at the end (autocannon runs in this process, each server in its own)`,
  );
  console.log('');
  console.log('| round | target | req/s | p50 ms | p99 ms | max ms | failures | server CPU µs/req |');
  console.log('|---|---|---|---|---|---|---|---|');
  rounds.forEach((r, i) => {
    for (const t of targets) console.log(row(`${i + 1}`, t.name, r[t.key]));
  });
  console.log('');
  const mem = targets.map((t) => {
    const m = memory(t.child.pid);
    return `${t.key} ${m.rssMb} / ${m.peakRssMb} MB`;
  });
  console.log(`RSS / peak RSS after the runs: ${mem.join(', ')}`);
  const perRound = rounds.map((r) => (r.raw.cpuUs / r.pack.cpuUs).toFixed(2));
  console.log(
    `server CPU per request (mean): raw ${cpu.raw.toFixed(1)} µs, pack ${cpu.pack.toFixed(1)} µs; CPU-bound capacity ratio ${ratio.toFixed(2)} (goal ≥ 0.75; per round ${perRound.join(', ')})`,
  );
  console.log(
    `the call record: pack at warn ${cpu.warn.toFixed(1)} µs/req (ratio ${(cpu.raw / cpu.warn).toFixed(2)}), ${(cpu.pack - cpu.warn).toFixed(1)} µs per call for the record`,
  );
  console.log(
    `metrics on: pack ${cpu.metrics.toFixed(1)} µs/req, ${(cpu.metrics - cpu.pack).toFixed(1)} µs over metrics off (${((cpu.metrics / cpu.pack - 1) * 100).toFixed(1)}%)`,
  );
  if (rate === undefined) {
    const throughput = rounds.map((r) => (r.pack.requestsPerSecond / r.raw.requestsPerSecond).toFixed(2));
    console.log(`throughput ratio (pack / raw) per round: ${throughput.join(', ')}`);
  } else {
    console.log(`pack p99 per round at ${rate} req/s: ${rounds.map((r) => r.pack.latencyP99Ms).join(', ')} ms`);
  }
  const file = recordBenchResult({
    group: 'pack-service-call',
    command: COMMAND,
    ratios: [
      {
        name: `CPU raw/pack at ${rate === undefined ? 'full speed' : 'equal load'}, ${process.env.BENCH_LOG_LEVEL ?? 'info'} record`,
        value: Number(ratio.toFixed(3)),
        goal: 0.75,
        direction: 'atLeast',
        detail: `raw ${cpu.raw.toFixed(1)} vs pack ${cpu.pack.toFixed(1)} µs/call (warn ${cpu.warn.toFixed(1)}, metrics on ${cpu.metrics.toFixed(1)}) at ${rate ?? 'full speed'} req/s, ${ROUNDS}×${duration} s`,
      },
    ],
  });
  console.log(`recorded in ${file}`);
}

async function bench() {
  const dir = writePack();
  const children = [];
  try {
    const targets = await startTargets(dir, children);
    // Warm every target (JIT, validator compile, connection setup) before measuring.
    for (const t of targets)
      await runPackBenchmark({ url: t.url, token: t.token, body, connections, durationSeconds: 2 });
    // The machine is shared: the targets alternate over several rounds so a load swing hits all of them.
    report(targets, await runRounds(targets));
  } finally {
    for (const child of children) child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--raw-server')) {
  const server = await startRawEchoServer();
  console.log(JSON.stringify({ port: Number(new URL(server.url).port) }));
  process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
} else {
  await bench();
}
