import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyExamplePack } from './pack-fixtures.js';

// The example pack plus two tools the MCP tests need: an echo (read-only) and a call that waits until it is
// aborted (noting in `<marker>.started` when it began), then writes the time its abortSignal fired (ms since the epoch) to the file its input names.
const ECHO_TOOL = `import { defineTool } from '@kindgi/sdk';

export default defineTool({
  id: 'acme.echo',
  description: 'Answers its input.',
  mutating: false,
  input: { type: 'object', required: ['text'], properties: { text: { type: 'string', maxLength: 64 } }, additionalProperties: false },
  output: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
  handler: async (input: { text: string }) => ({ text: input.text }),
});
`;

const WAIT_TOOL = `import { writeFileSync } from 'node:fs';
import { defineTool } from '@kindgi/sdk';

export default defineTool({
  id: 'acme.wait-abort',
  description: 'Waits until aborted; notes when.',
  input: { type: 'object', required: ['marker'], properties: { marker: { type: 'string' } } },
  output: { type: 'object' },
  limits: { timeoutMs: 120000 },
  handler: (input: { marker: string }, ctx) =>
    new Promise((_resolve, reject) => {
      writeFileSync(input.marker + '.started', String(Date.now()));
      ctx.abortSignal.addEventListener('abort', () => {
        writeFileSync(input.marker, String(Date.now()));
        reject(new Error('aborted'));
      });
    }),
});
`;

/** A copy of the example pack with `acme.echo` and `acme.wait-abort`, and a folder its code can write. */
export function copyMcpPack(root: string): { packDir: string; scratch: string } {
  const packDir = copyExamplePack(root);
  for (const [name, source] of [
    ['echo', ECHO_TOOL],
    ['wait-abort', WAIT_TOOL],
  ] as const) {
    mkdirSync(join(packDir, 'tools', name), { recursive: true });
    writeFileSync(join(packDir, 'tools', name, 'index.ts'), source);
  }
  const scratch = join(root, 'scratch');
  mkdirSync(scratch);
  chmodSync(scratch, 0o777);
  return { packDir, scratch };
}
