// The Java pack service's echo tool driven exactly as the TypeScript service's benchmark drives its own
// (packages/pack-service: same body, schemas, connections, durations, autocannon driver), both services
// in the same run, rounds alternating so a load swing on the shared machine hits both. The Java service
// runs twice, with the SDK's container JVM defaults and with the JVM's ergonomics, to price the defaults.
//
//   pnpm --filter @kindgi/pack-service build && node sdks/java/kindgi-pack/bench/bench.mjs
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const sdkDir = fileURLToPath(new URL('..', import.meta.url));
const serviceDist = fileURLToPath(new URL('../../../../packages/pack-service/dist/', import.meta.url));
// The same driver and the same workload (schema, body, token) as the TypeScript service's benchmark.
const { runPackBenchmark, ECHO_BENCH_WORKLOAD, benchSettings, portFromLines } = await import(
  fileURLToPath(new URL('../../../../packages/pack-service/bench/driver.mjs', import.meta.url))
);
const { token: TOKEN, schema: message, body } = ECHO_BENCH_WORKLOAD;
const { duration, connections, rounds: ROUNDS } = benchSettings();

function index(modulePath) {
  return {
    v: 1,
    packId: 'bench',
    packVersion: '1.0.0',
    artifactVersion: '20260101.1',
    publishedAt: '2026-01-01T00:00:00.000Z',
    tools: [{ id: 'bench.echo', input: message, output: message, modulePath }],
    guardrails: [],
    agents: [],
    flows: [],
  };
}

function writePacks(dir) {
  const node = join(dir, 'node');
  mkdirSync(join(node, 'tools'), { recursive: true });
  writeFileSync(join(node, 'tools', 'echo.mjs'), 'export default function echo(input) { return input; }\n');
  writeFileSync(join(node, 'index.json'), JSON.stringify(index('tools/echo.mjs')));
  execFileSync(
    'mvn',
    [
      '-B',
      '-q',
      '-f',
      join(sdkDir, 'pom.xml'),
      'compile',
      'dependency:build-classpath',
      '-Dmdep.outputFile=target/classpath.txt',
      '-Dmdep.includeScope=runtime',
    ],
    { stdio: 'inherit' },
  );
  const classpath = [
    join(sdkDir, 'target', 'classes'),
    readFileSync(join(sdkDir, 'target', 'classpath.txt'), 'utf8').trim(),
  ].join(delimiter);
  const java = join(dir, 'java');
  execFileSync(
    'javac',
    [
      '-cp',
      classpath,
      '-d',
      join(java, 'target', 'classes'),
      join(sdkDir, 'bench', 'pack', 'src', 'main', 'java', 'bench', 'tools', 'Echo.java'),
    ],
    { stdio: 'inherit' },
  );
  writeFileSync(join(java, 'index.json'), JSON.stringify(index('src/main/java/bench/tools/Echo.java')));
  return { node, java, classpath };
}

/**
 * Starts a service and resolves with its port. With `tokenFd`, the token goes on descriptor 3 (as the
 * supervisor passes it to the TypeScript service): with it in the environment that service re-executes
 * itself to keep it from pack code, and /proc would time and size the launcher instead of the service.
 */
function startService(command, args, env, tokenFd) {
  const stdio = tokenFd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe', 'pipe'];
  const child = spawn(command, args, { env, stdio });
  if (tokenFd !== undefined) child.stdio[3].end(tokenFd);
  child.stdout.resume();
  return new Promise((resolve, reject) => {
    portFromLines(child.stderr, (record) => record.event === 'listening').then((port) => resolve({ child, port }));
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code} before listening`)));
  });
}

function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

const mb = (m) => `${m.rss} / ${m.peak} MB`;

// CPU time (user + system, in clock ticks of 10 ms) a process has used. Per request it is robust to the
// shared machine's load in a way requests per second are not.
function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function childPidsOf(pid) {
  // A JVM forks from the thread that called ProcessBuilder.start, not the process's first thread.
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
    readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
  );
}

/** CPU ticks of a target and its children: for `Main serve`, the launcher and its pack JVM summed. */
const treeTicks = (pid) => [pid, ...childPidsOf(pid)].reduce((sum, p) => sum + cpuTicks(p), 0);

// `Main serve` is a launcher whose child JVM runs the pack: both count.
function javaMemory(pid) {
  const childPids = childPidsOf(pid);
  const launcher = memory(pid);
  const child = childPids.length > 0 ? memory(Number(childPids[0])) : { rss: Number.NaN, peak: Number.NaN };
  return `pack JVM ${mb(child)}, launcher ${mb(launcher)}`;
}

const row = (round, name, f) =>
  `| ${round} | ${name} | ${Math.round(f.requestsPerSecond)} | ${Math.round(f.cpuUsPerRequest)} | ${f.latencyP50Ms} | ${f.latencyP99Ms} | ${f.latencyMaxMs} | ${f.failures} |`;

const dir = mkdtempSync(join(tmpdir(), 'kindgi-java-bench-'));
const children = [];
try {
  const packs = writePacks(dir);
  const tsEnv = {
    PATH: process.env.PATH,
    PORT: '0',
    KINDGI_LOG_FORMAT: 'json',
    KINDGI_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  };
  const ts = await startService(
    process.execPath,
    [join(serviceDist, 'main.js'), '--index', join(packs.node, 'index.json'), '--host', '127.0.0.1', '--token-fd', '3'],
    tsEnv,
    TOKEN,
  );
  children.push(ts.child);
  // A JVM can't open an inherited pipe as /dev/fd/3, so `Main serve` takes the token from its environment
  // and keeps it out of the pack JVM's (the launcher is the JVM timed and sized together with its child).
  const env = { ...tsEnv, KINDGI_PACK_SERVICE_TOKEN: TOKEN };
  // The Java service twice: with the SDK's container defaults (what `Main serve` gives its pack JVM), and
  // with the JVM's own ergonomics (KINDGI_PACK_JVM_DEFAULTS=off), so the defaults' cost shows in one run.
  const javaArgs = [
    ...(process.env.BENCH_JAVA_OPTIONS ? process.env.BENCH_JAVA_OPTIONS.split(' ') : []),
    '-cp',
    packs.classpath,
    'com.kindgi.pack.Main',
    'serve',
    '--index',
    join(packs.java, 'index.json'),
    '--host',
    '127.0.0.1',
  ];
  const java = await startService('java', javaArgs, env);
  children.push(java.child);
  const javaErgonomic = await startService('java', javaArgs, { ...env, KINDGI_PACK_JVM_DEFAULTS: 'off' });
  children.push(javaErgonomic.child);
  const targets = [
    ['TypeScript pack service echo tool', `http://127.0.0.1:${ts.port}/v1/invoke`, ts.child.pid],
    ['Java pack service echo tool (container defaults)', `http://127.0.0.1:${java.port}/v1/invoke`, java.child.pid],
    [
      'Java pack service echo tool (JVM ergonomics)',
      `http://127.0.0.1:${javaErgonomic.port}/v1/invoke`,
      javaErgonomic.child.pid,
    ],
  ];
  // Warm each (JIT, validator compile, connection setup) before measuring.
  for (const [, url] of targets) await runPackBenchmark({ url, token: TOKEN, body, connections, durationSeconds: 3 });
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const figures = [];
    for (const [, url, pid] of targets) {
      const before = treeTicks(pid);
      const f = await runPackBenchmark({ url, token: TOKEN, body, connections, durationSeconds: duration });
      figures.push({ ...f, cpuUsPerRequest: ((treeTicks(pid) - before) * 10_000) / Math.max(1, f.totalRequests) });
    }
    rounds.push(figures);
  }
  console.log(
    `Pack service benchmark (TypeScript vs Java), ${new Date().toISOString()}, ${connections} connections, ${ROUNDS} rounds of ${duration} s per target`,
  );
  console.log('');
  console.log('| round | target | req/s | CPU µs/req | p50 ms | p99 ms | max ms | failures |');
  console.log('|---|---|---|---|---|---|---|---|');
  rounds.forEach((figures, i) => {
    for (const [t, f] of figures.entries()) console.log(row(`${i + 1}`, targets[t][0], f));
  });
  console.log('');
  console.log(`RSS / peak RSS after the runs: TypeScript ${mb(memory(ts.child.pid))}`);
  console.log(`  Java (container defaults): ${javaMemory(java.child.pid)}`);
  console.log(`  Java (JVM ergonomics): ${javaMemory(javaErgonomic.child.pid)}`);
  const ratio = (a, b) =>
    rounds.map((figures) => (figures[a].requestsPerSecond / figures[b].requestsPerSecond).toFixed(2));
  console.log(`throughput ratio (Java container defaults / TypeScript) per round: ${ratio(1, 0).join(', ')}`);
  console.log(`throughput ratio (Java container defaults / JVM ergonomics) per round: ${ratio(1, 2).join(', ')}`);
  const cpu = (a, b) => rounds.map((figures) => (figures[a].cpuUsPerRequest / figures[b].cpuUsPerRequest).toFixed(2));
  console.log(`CPU per request ratio (Java container defaults / JVM ergonomics) per round: ${cpu(1, 2).join(', ')}`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
