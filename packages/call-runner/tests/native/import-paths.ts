// Run by native-import.test.ts in a plain Node process (vitest's module runner cannot import paths with
// '#'), so this exercises the runner's real `import()` of awkward paths and URLs.
import { pathToFileURL } from 'node:url';
import { runCheck, runHandler } from '../../src/index.js';
import { fixture } from '../helpers.js';

const ctx = { tenantId: 't-1', runId: 'r-1' };
const toolPath = fixture('dir with space #1/tool #2.mjs');
const tool = (modulePath: string) => ({
  id: 'fixtures.spaced',
  modulePath,
  inputSchema: { type: 'object' },
  outputSchema: true,
});

const outcomes = {
  path: await runHandler({ tool: tool(toolPath), input: { via: 'path' }, ctx }),
  url: await runHandler({ tool: tool(pathToFileURL(toolPath).href), input: { via: 'url' }, ctx }),
  check: await runCheck({
    check: { id: 'fixtures.spaced-check', modulePath: fixture('dir with space #1/check #2.mjs') },
    config: { label: 'native' },
    trace: {},
  }),
  missing: await runHandler({ tool: tool(fixture('dir with space #1/missing #3.mjs')), input: {}, ctx }),
};
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
