import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnUntilRecord, treeCpuMicros, writeBenchPack } from '@kindgi/test-services/bench-kit';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const SERVER_MAIN = here('../../server/dist/main.js');
const EXAMPLE_PACK = here('../../example-pack');
const TOKEN = 'mcp-bench-token-0123456789abcdef';
const PER_SLICE = Number(process.argv[2] ?? 2000);
const SLICES = Number(process.argv[3] ?? 8);
const HEAP_CALLS = Number(process.argv[4] ?? 100_000);
const CONCURRENCY = 8;
const INPUT = { text: 'hello' };

const ECHO = `import { defineTool } from '@kindgi/sdk';
export default defineTool({
  id: 'bench.echo',
  description: 'Answers its input.',
  mutating: false,
  input: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
  output: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
  handler: async (input) => ({ text: input.text }),
});
`;

async function connect(url, mode) {
  const client = new Client({ name: 'mcp-bench', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  await client.listTools();
  return client;
}

async function rest(url) {
  const response = await fetch(`${url}/v1/tools/bench.echo/invoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ input: INPUT }),
  });
  if (response.status !== 200) throw new Error(`REST: HTTP ${response.status}`);
  await response.arrayBuffer();
}

async function mcp(client) {
  const result = await client.callTool({ name: 'bench.echo', arguments: INPUT });
  if (result.isError) throw new Error(`MCP: ${JSON.stringify(result.content)}`);
}

/** `count` calls over CONCURRENCY workers; worker i uses callers[i]. */
async function slice(callers, count) {
  let next = 0;
  const worker = async (call) => {
    while (next < count) {
      next++;
      await call();
    }
  };
  await Promise.all(callers.map(worker));
}

async function heapUsed(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith('kindgi_server_nodejs_heap_size_used_bytes '));
  return Number(line?.split(' ')[1]) / (1024 * 1024);
}

const work = mkdtempSync(join(tmpdir(), 'kindgi-mcp-bench-'));
// A server run as root serves packs as nobody: the pack folder must let it in (config and data stay closed).
chmodSync(work, 0o711);
let server;
const clients = [];
try {
  const pack = writeBenchPack(work, { echo: ECHO }, join(EXAMPLE_PACK, 'node_modules'));
  const configPath = join(work, 'kindgi.server.json');
  const config = {
    host: '127.0.0.1',
    port: 0,
    dataDir: join(work, 'data'),
    docs: false,
    tokens: [{ token: TOKEN, tenantId: 'bench' }],
    packs: [{ dir: pack }],
    metrics: { enabled: true },
  };
  writeFileSync(configPath, JSON.stringify(config), { mode: 0o600 });
  // The pack may report serving before or after the listener is up.
  server = await spawnUntilRecord([SERVER_MAIN, '--config', configPath], {
    ready: (records) =>
      records.some((r) => r.event === 'listening') && records.some((r) => r.event === 'pack-child-serving'),
  });
  const { url } = server.records.find((r) => r.event === 'listening');
  console.error(`server at ${url}; connecting clients`);
  const modern = await Promise.all(Array.from({ length: CONCURRENCY }, () => connect(url, { pin: '2026-07-28' })));
  const legacy = await Promise.all(Array.from({ length: CONCURRENCY }, () => connect(url, 'legacy')));
  clients.push(...modern, ...legacy);
  const kinds = {
    rest: Array.from({ length: CONCURRENCY }, () => () => rest(url)),
    'mcp 2026-07-28': modern.map((client) => () => mcp(client)),
    'mcp 2025-11-25': legacy.map((client) => () => mcp(client)),
  };
  const names = Object.keys(kinds);
  console.error('warming up');
  for (const name of names) await slice(kinds[name], 1000); // warm-up
  console.error('measuring');
  const cpu = Object.fromEntries(names.map((name) => [name, { micros: 0, calls: 0 }]));
  for (let round = 0; round < SLICES; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of order) {
      const before = treeCpuMicros(server.child.pid);
      await slice(kinds[name], PER_SLICE);
      cpu[name].micros += treeCpuMicros(server.child.pid) - before;
      cpu[name].calls += PER_SLICE;
    }
  }
  const perCall = (name) => cpu[name].micros / cpu[name].calls;

  const heap = [];
  const step = HEAP_CALLS / 10;
  heap.push(await heapUsed(url));
  for (let done = 0; done < HEAP_CALLS; done += step) {
    await slice(kinds['mcp 2026-07-28'], step / 2);
    await slice(kinds['mcp 2025-11-25'], step / 2);
    heap.push(await heapUsed(url));
  }

  console.log(
    `# mcp bench: ${SLICES} rotating slices x ${PER_SLICE} calls per kind (concurrency ${CONCURRENCY}), ${new Date().toISOString()}, Node ${process.version}`,
  );
  const base = perCall('rest');
  for (const name of names) {
    const extra = name === 'rest' ? '' : `  (+${(perCall(name) - base).toFixed(1)} µs vs REST; goal <= +50)`;
    console.log(`server + pack CPU per call, ${name.padEnd(16)} ${perCall(name).toFixed(1)} µs${extra}`);
  }
  console.log(`server heap used (MiB) every ${step} MCP calls: ${heap.map((mib) => mib.toFixed(1)).join(' ')}`);
} finally {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  server?.child.kill('SIGTERM');
  if (server) await new Promise((resolve) => server.child.once('exit', resolve));
  rmSync(work, { recursive: true, force: true });
}
