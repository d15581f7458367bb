import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnUntilRecord, treeCpuMicros, writeBenchPack } from '@kindgi/test-services/bench-kit';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const SERVER_MAIN = here('../dist/main.js');
const EXAMPLE_PACK = here('../../example-pack');
const TOKEN = 'bench-api-token-0123456789abcdef';
const PER_SLICE = Number(process.argv[2] ?? 1500);
const SLICES = Number(process.argv[3] ?? 8);
const CONCURRENCY = 8;

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

const work = mkdtempSync(join(tmpdir(), 'kindgi-secrets-bench-'));
// A server run as root serves packs as nobody: the pack folder must let it in (config and data stay closed).
chmodSync(work, 0o711);
let server;
try {
  // The same tool twice: one declaring two secrets, one declaring none.
  const secrets = "{ secrets: { API_KEY: { type: 'string', minLength: 16 }, REGION: { type: 'string' } } }";
  const tools = { plain: tool('bench.plain'), secret: tool('bench.secret', secrets) };
  const pack = writeBenchPack(work, tools, join(EXAMPLE_PACK, 'node_modules'));
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
  server = await spawnUntilRecord([SERVER_MAIN, '--config', configPath], {
    ready: (records) => records.some((r) => r.event === 'listening'),
  });
  const { url } = server.records.find((r) => r.event === 'listening');
  await put(url, 'API_KEY', 'bench-api-key-0123456789');
  await put(url, 'REGION', 'eu-west-1');
  for (const toolId of ['bench.plain', 'bench.secret']) await slice(url, toolId, 500); // warm-up

  const cpu = { 'bench.plain': { micros: 0, calls: 0 }, 'bench.secret': { micros: 0, calls: 0 } };
  for (let round = 0; round < SLICES; round++) {
    const order = round % 2 === 0 ? ['bench.plain', 'bench.secret'] : ['bench.secret', 'bench.plain'];
    for (const toolId of order) {
      const before = treeCpuMicros(server.child.pid);
      await slice(url, toolId, PER_SLICE);
      cpu[toolId].micros += treeCpuMicros(server.child.pid) - before;
      cpu[toolId].calls += PER_SLICE;
    }
  }
  const perCall = (entry) => entry.micros / entry.calls;
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
