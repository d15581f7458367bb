import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyExamplePack } from './pack-fixtures.js';

// Notes each execution (`start <runId>`) in a log file, holds the call until a release file exists, then
// notes `done <runId>` and answers: a test decides when the pack answers (e.g. while the database is down)
// and counts how often each run was executed.
const COUNT_TOOL = `import { appendFileSync, existsSync } from 'node:fs';
import { defineTool } from '@kindgi/sdk';

type CountInput = { log: string; release: string; payload: string };

export default defineTool({
  id: 'acme.count-run',
  description: 'Counts its executions in a log file and answers once a release file exists.',
  input: {
    type: 'object',
    required: ['log', 'release', 'payload'],
    properties: { log: { type: 'string' }, release: { type: 'string' }, payload: { type: 'string' } },
  },
  output: { type: 'object' },
  limits: { timeoutMs: 120000 },
  handler: async (input: CountInput, ctx) => {
    appendFileSync(input.log, 'start ' + ctx.runId + '\\n');
    while (!existsSync(input.release)) {
      if (ctx.abortSignal.aborted) throw new Error('aborted');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    appendFileSync(input.log, 'done ' + ctx.runId + '\\n');
    return { runId: ctx.runId, payload: input.payload };
  },
});
`;

/** A copy of the example pack with `acme.count-run`, and a folder its code can write (it may run as nobody). */
export function copyCountPack(root: string): { packDir: string; scratch: string } {
  const packDir = copyExamplePack(root);
  mkdirSync(join(packDir, 'tools', 'count-run'), { recursive: true });
  writeFileSync(join(packDir, 'tools', 'count-run', 'index.ts'), COUNT_TOOL);
  const scratch = join(root, 'scratch');
  mkdirSync(scratch);
  chmodSync(scratch, 0o777);
  return { packDir, scratch };
}

/** How often each run id was started and finished by `acme.count-run`, from its log. */
export function countLog(path: string): { started: Map<string, number>; done: Map<string, number> } {
  const started = new Map<string, number>();
  const done = new Map<string, number>();
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    // No execution yet.
  }
  for (const line of text.split('\n')) {
    const [what, runId] = line.split(' ');
    if (runId === undefined) continue;
    const counts = what === 'start' ? started : done;
    counts.set(runId, (counts.get(runId) ?? 0) + 1);
  }
  return { started, done };
}
