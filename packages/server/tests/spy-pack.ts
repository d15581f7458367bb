import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runIndexer } from '@kindgi/indexer';
import { copyExamplePack } from './pack-fixtures.js';

// Records the `kindgi-timeout-ms` every request reaching the pack service arrived with, by its
// `kindgi-run-id`: Node publishes each server request on this channel before the service handles it.
const SPY_LIB = `import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';

const seen = new Map<string, string | null>();
subscribe('http.server.request.start', (message) => {
  const { request } = message as { request: IncomingMessage };
  const runId = request.headers['kindgi-run-id'];
  const timeout = request.headers['kindgi-timeout-ms'];
  if (typeof runId === 'string') seen.set(runId, typeof timeout === 'string' ? timeout : null);
});

export function timeoutSeen(runId: string): string | null {
  return seen.get(runId) ?? null;
}
`;

const SPY_TOOL = `import { defineTool } from '@kindgi/sdk';
import { timeoutSeen } from '../../lib/deadline-spy.js';

export default defineTool({
  id: 'acme.deadline-spy',
  description: 'Answers the kindgi-timeout-ms its own call arrived with.',
  input: { type: 'object' },
  output: { type: 'object', required: ['timeoutMs'], properties: { timeoutMs: { type: ['string', 'null'] } } },
  handler: async (_input: unknown, ctx) => ({ timeoutMs: timeoutSeen(ctx.runId) }),
});
`;

const SPY_GUARDRAIL = `import { defineGuardrail } from '@kindgi/sdk';
import { timeoutSeen } from '../../lib/deadline-spy.js';

export default defineGuardrail({
  id: 'acme.deadline-spy',
  name: 'Reports the deadline its check arrived with',
  action: 'log-only',
  severity: 'info',
  scope: { when: 'always' },
  check: {
    id: 'acme.checks.deadline-spy',
    evaluate: (_config, trace) => ({ passed: true, attributes: { timeoutMs: timeoutSeen(String(trace.runId)) } }),
  },
});
`;

// Notes each execution in its marker file first, then blocks the whole service for \`blockMs\`: it answers
// nothing meanwhile, not even its own deadline, like a service that took the call and went silent.
const STALL_TOOL = `import { appendFileSync } from 'node:fs';
import { defineTool } from '@kindgi/sdk';

type StallInput = { marker: string; blockMs: number };

export default defineTool({
  id: 'acme.stall',
  description: 'Counts its executions in a marker file, then blocks its process.',
  input: {
    type: 'object',
    required: ['marker', 'blockMs'],
    properties: { marker: { type: 'string' }, blockMs: { type: 'integer', minimum: 0, maximum: 30000 } },
  },
  output: { type: 'object' },
  handler: async (input: StallInput) => {
    appendFileSync(input.marker, 'ran\\n');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, input.blockMs);
    return {};
  },
});
`;

/**
 * A copy of the example pack with three more parts: `acme.deadline-spy` (a tool answering the
 * `kindgi-timeout-ms` its call arrived with), the guardrail `acme.deadline-spy` (its check reports the same
 * as `attributes.timeoutMs`) and `acme.stall` (counts executions in a marker file, then blocks the service).
 */
export function copySpyPack(root: string): string {
  const dir = copyExamplePack(root);
  const files: Record<string, string> = {
    'lib/deadline-spy.ts': SPY_LIB,
    'tools/deadline-spy/index.ts': SPY_TOOL,
    'tools/stall/index.ts': STALL_TOOL,
    'guardrails/deadline-spy/index.ts': SPY_GUARDRAIL,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Indexes a pack folder into `workDir/index.json`, the way a pack image is built. */
export async function indexPack(packDir: string, workDir: string): Promise<string> {
  const indexPath = join(workDir, 'index.json');
  const outcome = await runIndexer({ packDir, outputPath: indexPath });
  if (outcome.kind === 'err') throw new Error(`indexing ${packDir} failed: ${outcome.error.message}`);
  return indexPath;
}
