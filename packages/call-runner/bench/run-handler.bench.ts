// The cost runHandler adds over calling a handler directly, for a 5-property input schema with
// defaults. Run: `pnpm --filter @kindgi/call-runner bench` (sources through jiti, no build needed).
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { createHandlerContext, runHandler } from '../src/index.js';

// Each sample runs a batch, so a per-call time far below the timer's resolution is still measured.
const BATCH = 500;

const modulePath = fileURLToPath(new URL('./tool.mjs', import.meta.url));
const { handler } = (await import(new URL('./tool.mjs', import.meta.url).href)) as {
  handler: (input: { limit: number }, ctx: unknown) => unknown;
};

const tool = {
  id: 'bench.search',
  modulePath,
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1 },
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
      offset: { type: 'integer', minimum: 0, default: 0 },
      lang: { type: 'string', enum: ['en', 'de', 'fr'], default: 'en' },
      exact: { type: 'boolean', default: false },
    },
    required: ['query'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { ok: { type: 'boolean' }, count: { type: 'integer' } },
    required: ['ok', 'count'],
  },
};
const input = { query: 'backpay', lang: 'de' };
const ctx = { tenantId: 'tenant-1', runId: 'run-1', requestId: 'call-1' };

// Warm the caches (compile, import) and prove the call succeeds before timing it.
const first = await runHandler({ tool, input, ctx });
if (first.kind !== 'ok') throw new Error(`runHandler failed: ${JSON.stringify(first.error)}`);

const bench = new Bench({ time: 2000, warmupTime: 500 });
bench
  .add('handler called directly', async () => {
    for (let i = 0; i < BATCH; i++) await handler({ limit: 10 }, ctx);
  })
  .add('handler called directly (with a built ctx)', async () => {
    for (let i = 0; i < BATCH; i++) await handler({ limit: 10 }, createHandlerContext(ctx));
  })
  .add('runHandler', async () => {
    for (let i = 0; i < BATCH; i++) {
      const outcome = await runHandler({ tool, input, ctx });
      if (outcome.kind !== 'ok') throw new Error('runHandler failed');
    }
  });
await bench.run();

// Per call, in µs: the median batch is robust to a shared machine's stalls; the mean includes them.
const perCallUs = (name: string): { median: number; mean: number } => {
  const result = bench.getTask(name)?.result;
  if (!result || !('latency' in result)) throw new Error(`no result for ${name}`);
  return { median: (result.latency.p50 * 1000) / BATCH, mean: (result.latency.mean * 1000) / BATCH };
};

const direct = perCallUs('handler called directly');
const runner = perCallUs('runHandler');
const show = (label: string, figures: { median: number; mean: number }) =>
  `${label.padEnd(26)} median ${figures.median.toFixed(3)} µs/call, mean ${figures.mean.toFixed(3)} µs/call`;
const lines = [
  `node ${process.version}, ${new Date().toISOString()}, ${BATCH} calls per sample`,
  show('handler called directly:', direct),
  show('runHandler:', runner),
  show('added by runHandler:', { median: runner.median - direct.median, mean: runner.mean - direct.mean }) +
    ' (goal: at most 5 µs)',
];
console.table(bench.table());
console.log(lines.join('\n'));
