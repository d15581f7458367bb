// What the supervisor's front costs: the same echo calls sent straight to a pack service child and
// through the front, with the protocol client, closed loop. Run after `pnpm build`:
//   node packages/handler-runtime/bench/front-overhead.mjs [seconds=5] [concurrency=16]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPackServiceClient, createPackServiceSupervisor } from '../dist/pack-service.js';

const seconds = Number(process.argv[2] ?? 5);
const concurrency = Number(process.argv[3] ?? 16);
const serviceMain = fileURLToPath(new URL('../dist/pack-service/main.js', import.meta.url));

const packDir = mkdtempSync(join(tmpdir(), 'kindgi-front-bench-'));
mkdirSync(join(packDir, 'tools'));
writeFileSync(join(packDir, 'tools/echo.mjs'), 'export default async (input) => ({ message: input.message });\n');
const indexPath = join(packDir, 'index.json');
const object = { type: 'object' };
writeFileSync(
  indexPath,
  JSON.stringify({
    v: 1,
    packId: 'bench',
    packVersion: '1.0.0',
    artifactVersion: 'bench.1',
    publishedAt: '2026-01-01T00:00:00.000Z',
    tools: [{ id: 'bench.echo', input: object, output: object, modulePath: 'tools/echo.mjs' }],
    guardrails: [],
    agents: [],
    flows: [],
  }),
);

async function measure(label, client) {
  const latencies = [];
  let failures = 0;
  const until = Date.now() + seconds * 1000;
  const ctx = { tenantId: 't', runId: 'r' };
  // Warm both paths' connections and the child's JIT before counting.
  for (let i = 0; i < 200; i++) await client.invoke({ tool: 'bench.echo', input: { message: 'w' }, ctx });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        const began = process.hrtime.bigint();
        const reply = await client.invoke({ tool: 'bench.echo', input: { message: 'x' }, ctx });
        if (reply.kind !== 'ok' || reply.value.kind !== 'result') failures++;
        latencies.push(Number(process.hrtime.bigint() - began) / 1e6);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(2);
  const rate = Math.round(latencies.length / seconds);
  console.log(`${label.padEnd(8)} ${rate} calls/s  p50 ${at(0.5)} ms  p99 ${at(0.99)} ms  failures ${failures}`);
  await client.close();
}

const supervisor = createPackServiceSupervisor({
  command: [process.execPath, serviceMain],
  moduleRoot: packDir,
  env: () => ({ PATH: process.env.PATH ?? '', KINDGI_LOG_LEVEL: 'warn', KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '256' }),
});
try {
  const front = await supervisor.listen();
  const started = await supervisor.start(indexPath);
  if (started.kind !== 'ok') throw new Error(started.error.message);
  console.log(`node ${process.version}, ${seconds}s per path, concurrency ${concurrency}`);
  await measure(
    'direct',
    createPackServiceClient({ url: `http://127.0.0.1:${started.value.port}`, token: front.token }),
  );
  await measure('front', createPackServiceClient(front));
} finally {
  await supervisor.close();
  rmSync(packDir, { recursive: true, force: true });
}
