import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSettings, ECHO_BENCH_WORKLOAD, portFromLines, runPackBenchmark, startRawEchoServer } from './driver.mjs';

// `pnpm --filter @kindgi/pack-service bench` (after a build): the pack service's echo tool (input and output schemas) against a raw node:http JSON
// echo server and the same service with KINDGI_PACK_SERVICE_METRICS=on, each in its own process, driven by autocannon from this one.
const { token: TOKEN, schema: message, body } = ECHO_BENCH_WORKLOAD;
const { duration, connections, rounds: ROUNDS, rate } = benchSettings();

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

/** CPU seconds (user, system) a process has used so far, from /proc (clock ticks of 10 ms). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

/** Runs one target and adds the server's CPU time per request (independent of other load on the machine). */
async function measure(options, pid) {
  const before = cpuSeconds(pid);
  const figures = await runPackBenchmark(options);
  const after = cpuSeconds(pid);
  const perRequest = (seconds) => (seconds * 1e6) / Math.max(1, figures.totalRequests);
  const userUs = perRequest(after.user - before.user);
  const systemUs = perRequest(after.system - before.system);
  return { ...figures, cpuUs: userUs + systemUs, userUs, systemUs };
}

function row(round, name, f) {
  return `| ${round} | ${name} | ${Math.round(f.requestsPerSecond)} | ${f.latencyP50Ms} | ${f.latencyP99Ms} | ${f.latencyMaxMs} | ${f.failures} | ${f.cpuUs.toFixed(1)} |`;
}

async function bench() {
  const dir = writePack();
  const self = fileURLToPath(import.meta.url);
  const children = [];
  try {
    const raw = await startChild([self, '--raw-server'], { PATH: process.env.PATH }, 'stdout');
    children.push(raw.child);
    const startPack = (extraEnv) =>
      startChild(
        [
          fileURLToPath(new URL('../dist/main.js', import.meta.url)),
          '--index',
          join(dir, 'index.json'),
          '--host',
          '127.0.0.1',
          '--token-fd',
          '3',
        ],
        {
          PATH: process.env.PATH,
          PORT: '0',
          KINDGI_LOG_FORMAT: 'json',
          KINDGI_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
          ...extraEnv,
        },
        'stderr',
        TOKEN,
      );
    const pack = await startPack({});
    children.push(pack.child);
    // The same service with Prometheus metrics on (issue 19): the per-call cost of counting.
    const metered = await startPack({ KINDGI_PACK_SERVICE_METRICS: 'on' });
    children.push(metered.child);
    const rawUrl = `http://127.0.0.1:${raw.port}/`;
    const packUrl = `http://127.0.0.1:${pack.port}/v1/invoke`;
    const meteredUrl = `http://127.0.0.1:${metered.port}/v1/invoke`;
    // Warm both (JIT, validator compile, connection setup) before measuring.
    await runPackBenchmark({ url: rawUrl, body, connections, durationSeconds: 2 });
    await runPackBenchmark({ url: packUrl, token: TOKEN, body, connections, durationSeconds: 2 });
    await runPackBenchmark({ url: meteredUrl, token: TOKEN, body, connections, durationSeconds: 2 });
    // The machine is shared: alternate the two targets over several rounds so a load swing hits both,
    // and report the median round's ratio.
    const rounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      const rawRun = await measure({ url: rawUrl, body, connections, durationSeconds: duration, rate }, raw.child.pid);
      const packRun = await measure(
        { url: packUrl, token: TOKEN, body, connections, durationSeconds: duration, rate },
        pack.child.pid,
      );
      const meteredRun = await measure(
        { url: meteredUrl, token: TOKEN, body, connections, durationSeconds: duration, rate },
        metered.child.pid,
      );
      rounds.push({
        raw: rawRun,
        pack: packRun,
        metrics: meteredRun,
        ratio: packRun.requestsPerSecond / rawRun.requestsPerSecond,
      });
    }
    const rawMem = memory(raw.child.pid);
    const packMem = memory(pack.child.pid);
    const meteredMem = memory(metered.child.pid);
    const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)];
    console.log(
      `Pack service benchmark, ${new Date().toISOString()}, ${connections} connections${rate === undefined ? '' : ` at ${rate} req/s offered`}, ${ROUNDS} rounds of ${duration} s per target`,
    );
    console.log(
      `Node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()
        .map((n) => n.toFixed(1))
        .join(' ')} at the end (autocannon runs in this process, each server in its own)`,
    );
    console.log('');
    console.log('| round | target | req/s | p50 ms | p99 ms | max ms | failures | server CPU µs/req |');
    console.log('|---|---|---|---|---|---|---|---|');
    rounds.forEach((r, i) => {
      console.log(row(`${i + 1}`, 'raw node:http JSON echo', r.raw));
      console.log(row(`${i + 1}`, 'pack service echo tool', r.pack));
      console.log(row(`${i + 1}`, 'pack service echo tool, metrics on', r.metrics));
    });
    console.log('');
    console.log(
      `RSS / peak RSS after the runs: raw ${rawMem.rssMb} / ${rawMem.peakRssMb} MB, pack service ${packMem.rssMb} / ${packMem.peakRssMb} MB, metrics on ${meteredMem.rssMb} / ${meteredMem.peakRssMb} MB`,
    );
    console.log(`throughput ratio (pack / raw) per round: ${rounds.map((r) => r.ratio.toFixed(2)).join(', ')}`);
    const mean = (side, key) => rounds.reduce((sum, r) => sum + r[side][key], 0) / rounds.length;
    const cpu = (side) => mean(side, 'cpuUs');
    const split = (side) => `user ${mean(side, 'userUs').toFixed(1)} + system ${mean(side, 'systemUs').toFixed(1)}`;
    console.log(
      `server CPU per request (mean): raw ${cpu('raw').toFixed(1)} µs, pack ${cpu('pack').toFixed(1)} µs; CPU-bound capacity ratio ${(cpu('raw') / cpu('pack')).toFixed(2)} (goal ≥ 0.75)`,
    );
    console.log(`  split: raw ${split('raw')} µs, pack ${split('pack')} µs`);
    console.log(
      `metrics on: pack ${cpu('metrics').toFixed(1)} µs/req, ${(cpu('metrics') - cpu('pack')).toFixed(1)} µs over metrics off (${((cpu('metrics') / cpu('pack') - 1) * 100).toFixed(1)}%)`,
    );
    // At an offered rate both targets answer the same req/s: only the CPU figure compares them.
    console.log(
      rate === undefined
        ? `median round: ratio ${median.ratio.toFixed(2)} (goal ≥ 0.75), pack p99 ${median.pack.latencyP99Ms} ms`
        : `pack p99 per round at ${rate} req/s: ${rounds.map((r) => r.pack.latencyP99Ms).join(', ')} ms`,
    );
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
