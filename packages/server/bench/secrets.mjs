// What tenant secrets cost a tool call: the server's CPU per call (server and pack service processes,
// from /proc/<pid>/stat) for a tool declaring two secrets vs the same tool declaring none, in one run, in
// alternating slices so both see the same machine; and the latency of PUT /v1/secrets/{name}.
//
//   pnpm --filter @kindgi/server build && node packages/server/bench/secrets.mjs [calls-per-slice] [slices]
import { spawn } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const SERVER_MAIN = here('../dist/main.js');
const EXAMPLE_PACK = here('../../example-pack');
const TOKEN = 'bench-api-token-0123456789abcdef';
const PER_SLICE = Number(process.argv[2] ?? 1500);
const SLICES = Number(process.argv[3] ?? 8);
const CONCURRENCY = 8;
const TICK_US = 1e6 / 100; // USER_HZ

const tool = (id, needsSpec) => `import { defineTool } from '@kindgi/sdk';
export default defineTool({
  id: '${id}',
  description: 'Answers at once.',
  ${needsSpec ? `needsSpec: ${needsSpec},` : ''}
  input: { type: 'object' },
  output: { type: 'object' },
  handler: async () => ({ ok: true }),
});
`;

/** A pack with the same tool twice: one declaring two secrets, one declaring none. */
function writePack(root) {
  const dir = join(root, 'pack');
  mkdirSync(join(dir, 'tools', 'plain'), { recursive: true });
  mkdirSync(join(dir, 'tools', 'secret'), { recursive: true });
  writeFileSync(
    join(dir, 'kindgi.config.ts'),
    "import { defineConfig } from '@kindgi/sdk';\nexport default defineConfig({ pack: { id: 'bench', version: '1.0.0' } });\n",
  );
  writeFileSync(join(dir, 'package.json'), '{"name":"bench-pack","private":true,"type":"module"}\n');
  writeFileSync(join(dir, 'tools', 'plain', 'index.ts'), tool('bench.plain'));
  const secrets = "{ secrets: { API_KEY: { type: 'string', minLength: 16 }, REGION: { type: 'string' } } }";
  writeFileSync(join(dir, 'tools', 'secret', 'index.ts'), tool('bench.secret', secrets));
  symlinkSync(join(EXAMPLE_PACK, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** utime + stime, in clock ticks, of `pid` and every process below it. */
function treeTicks(pid) {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const parent = Number(fields[1]);
      const ticks = Number(fields[11]) + Number(fields[12]);
      children.set(Number(name), { parent, ticks });
    } catch {}
  }
  let total = 0;
  const walk = (at) => {
    total += children.get(at)?.ticks ?? 0;
    for (const [child, info] of children) if (info.parent === at) walk(child);
  };
  walk(pid);
  return total;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function call(url, toolId) {
  const response = await fetch(`${url}/v1/tools/${toolId}/invoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: '{"input":{}}',
  });
  if (response.status !== 200) throw new Error(`${toolId}: HTTP ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
}

async function slice(url, toolId, count) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      await call(url, toolId);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

async function put(url, name, value) {
  const response = await fetch(`${url}/v1/secrets/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ value }),
  });
  if (response.status !== 200 && response.status !== 201) throw new Error(`PUT ${name}: HTTP ${response.status}`);
  await response.arrayBuffer();
}

function startServer(configPath) {
  const child = spawn(process.execPath, [SERVER_MAIN, '--config', configPath], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let pending = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      pending += chunk;
      for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
        const line = pending.slice(0, at);
        pending = pending.slice(at + 1);
        try {
          const record = JSON.parse(line);
          if (record.event === 'listening') resolve({ child, url: record.url });
        } catch {}
      }
    });
    child.once('exit', (code) => reject(new Error(`kindgi-server exited ${code}`)));
  });
}

const work = mkdtempSync(join(tmpdir(), 'kindgi-secrets-bench-'));
// A server run as root serves packs as nobody: the pack folder must let it in (config and data stay closed).
chmodSync(work, 0o711);
let server;
try {
  const pack = writePack(work);
  const configPath = join(work, 'kindgi.server.json');
  const config = {
    host: '127.0.0.1',
    port: 0,
    dataDir: join(work, 'data'),
    docs: false,
    tokens: [{ token: TOKEN, tenantId: 'bench', userId: 'bench' }],
    packs: [{ dir: pack }],
  };
  writeFileSync(configPath, JSON.stringify(config), { mode: 0o600 });
  server = await startServer(configPath);
  const { url } = server;
  await put(url, 'API_KEY', 'bench-api-key-0123456789');
  await put(url, 'REGION', 'eu-west-1');
  for (const toolId of ['bench.plain', 'bench.secret']) await slice(url, toolId, 500); // warm-up

  const cpu = { 'bench.plain': { ticks: 0, calls: 0 }, 'bench.secret': { ticks: 0, calls: 0 } };
  for (let round = 0; round < SLICES; round++) {
    const order = round % 2 === 0 ? ['bench.plain', 'bench.secret'] : ['bench.secret', 'bench.plain'];
    for (const toolId of order) {
      const before = treeTicks(server.child.pid);
      await slice(url, toolId, PER_SLICE);
      cpu[toolId].ticks += treeTicks(server.child.pid) - before;
      cpu[toolId].calls += PER_SLICE;
    }
  }
  const perCall = (entry) => (entry.ticks * TICK_US) / entry.calls;
  const plain = perCall(cpu['bench.plain']);
  const secret = perCall(cpu['bench.secret']);

  const latencies = [];
  for (let i = 0; i < 500; i++) {
    const begin = process.hrtime.bigint();
    await put(url, 'API_KEY', `bench-api-key-${String(i).padStart(12, '0')}`);
    latencies.push(Number(process.hrtime.bigint() - begin) / 1e6);
  }
  latencies.sort((a, b) => a - b);

  console.log(
    `# secrets bench: ${SLICES} alternating slices x ${PER_SLICE} calls (concurrency ${CONCURRENCY}), ${new Date().toISOString()}, Node ${process.version}`,
  );
  console.log(`server + pack CPU per call, no secrets:      ${plain.toFixed(1)} µs`);
  console.log(`server + pack CPU per call, two secrets:     ${secret.toFixed(1)} µs`);
  console.log(`ratio (two secrets / none):                  ${(secret / plain).toFixed(3)} (goal <= 1.10)`);
  console.log(
    `PUT /v1/secrets/{name}, 500 sequential:      p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms`,
  );
} finally {
  server?.child.kill('SIGTERM');
  if (server) await new Promise((resolve) => server.child.once('exit', resolve));
  rmSync(work, { recursive: true, force: true });
}
