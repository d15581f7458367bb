// Benchmark: index a generated pack of 500 TypeScript tools (half Zod, half JSON Schema) and 100 guardrails,
// through the built `kindgi-index` process (what a pack build runs) and in-process `runIndexer`.
// Run with `pnpm --filter @kindgi/indexer bench` after building.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const MAIN = join(here, '..', 'dist', 'main.js');
const TOOLS = 500;
const GUARDRAILS = 100;
const RUNS = 3;

function zodTool(n) {
  return `import { z } from 'zod';

const input = z.object({ query: z.string().min(1), limit: z.number().int().min(1).max(100).default(10), tags: z.array(z.string()).optional() });
const output = z.object({ items: z.array(z.object({ id: z.string(), score: z.number() })), total: z.number().int() });

export default {
  id: 'bench.tool-${n}',
  description: 'Generated tool ${n}.',
  inputZod: input,
  outputZod: output,
  effects: [{ kind: 'reads', resource: 'db:items' }],
  handler: async (value: z.infer<typeof input>) => ({ items: [], total: value.limit }),
};
`;
}

function jsonTool(n) {
  return `const input = {
  type: 'object',
  required: ['a', 'b'],
  properties: { a: { type: 'number' }, b: { type: 'number' }, note: { type: 'string', maxLength: 200 } },
  additionalProperties: false,
} as const;

export default {
  id: 'bench.tool-${n}',
  input,
  output: { type: 'object', required: ['sum'], properties: { sum: { type: 'number' } } },
  handler: async ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
};
`;
}

function guardrail(n) {
  return `export default {
  id: 'bench.guardrail-${n}',
  action: { 'on-violation': 'halt' },
  severity: 'error',
  configSchema: { type: 'object', properties: { max: { type: 'integer', minimum: 0 } }, required: ['max'] },
  config: { max: ${n} },
  check: { id: 'bench.checks.guardrail-${n}', evaluate: (config: { max: number }) => ({ passed: config.max >= 0 }) },
};
`;
}

async function generate(dir) {
  await writeFile(join(dir, 'kindgi.config.ts'), "export default { pack: { id: 'bench', version: '1.0.0' } };\n");
  // Generated packs live outside the workspace: link zod so their imports resolve.
  await mkdir(join(dir, 'node_modules'), { recursive: true });
  await symlink(join(here, '..', 'node_modules', 'zod'), join(dir, 'node_modules', 'zod'), 'dir');
  for (let n = 0; n < TOOLS; n++) {
    await mkdir(join(dir, 'tools', `tool-${n}`), { recursive: true });
    await writeFile(join(dir, 'tools', `tool-${n}`, 'index.ts'), n % 2 === 0 ? zodTool(n) : jsonTool(n));
  }
  for (let n = 0; n < GUARDRAILS; n++) {
    await mkdir(join(dir, 'guardrails', `guardrail-${n}`), { recursive: true });
    await writeFile(join(dir, 'guardrails', `guardrail-${n}`, 'index.ts'), guardrail(n));
  }
}

function timeCli(dir) {
  const started = process.hrtime.bigint();
  execFileSync(
    process.execPath,
    [MAIN, '--pack-dir', dir, '--artifact-version', '1', '--published-at', '2026-01-01T00:00:00.000Z', '--strict'],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const dir = await mkdtemp(join(tmpdir(), 'kindgi-index-bench-'));
try {
  await generate(dir);
  const files = TOOLS + GUARDRAILS;
  const cli = [];
  for (let i = 0; i < RUNS; i++) cli.push(timeCli(dir));
  const { runIndexer } = await import('../dist/index.js');
  const started = process.hrtime.bigint();
  const outcome = await runIndexer({ packDir: dir, artifactVersion: '1', publishedAt: '2026-01-01T00:00:00.000Z' });
  const inProcess = Number(process.hrtime.bigint() - started) / 1e6;
  if (outcome.kind !== 'ok') throw new Error(JSON.stringify(outcome));
  const median = [...cli].sort((a, b) => a - b)[Math.floor(RUNS / 2)];
  const rows = [
    `pack: ${TOOLS} tools (${TOOLS / 2} Zod, ${TOOLS / 2} JSON Schema) + ${GUARDRAILS} guardrails, all TypeScript`,
    `kindgi-index process, ${RUNS} runs (ms): ${cli.map((t) => t.toFixed(0)).join(', ')}; median ${median.toFixed(0)} ms, ${(median / files).toFixed(2)} ms/file`,
    `runIndexer in-process, first run (ms): ${inProcess.toFixed(0)}; ${(inProcess / files).toFixed(2)} ms/file`,
    `node ${process.version}, ${new Date().toISOString()}`,
  ];
  console.log(rows.join('\n'));
} finally {
  await rm(dir, { recursive: true, force: true });
}
