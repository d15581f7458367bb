import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type IndexAgent, validatePackIndex } from '@kindgi/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { runIndexer } from '../src/index.js';
import { configText, makePack, PINNED, removePacks } from './helpers/packs.js';

afterAll(removePacks);

// What defineTool makes: a definition marked (non-enumerably) as a tool. The pack has no SDK to import.
const SDK_TOOL = `const tool = { id: 'acme.lookup', description: 'Looks up.', mutating: false, input: { type: 'object' }, handler: async () => ({}) };
Object.defineProperty(tool, Symbol.for('kindgi.primitive'), { value: 'tool', enumerable: false });
export default tool;
`;

const VERSIONED_TOOL = `export default { id: 'acme.send', version: '2.1.0', input: { type: 'object' }, handler: async () => ({}) };
`;

const AGENT = `import lookup from '../tools/lookup.mjs';
import send from '../tools/send.mjs';
export default {
  id: 'acme.helper',
  instructions: 'Help.',
  description: 'Helps.',
  model: 'fast',
  tools: [lookup, send, 'acme.other', { id: 'other.fetch', range: '^1.2.0' }],
  guardrails: [{ id: 'acme.cites', action: 'halt', evaluate: () => ({ passed: true }) }, 'acme.no-pii'],
  toolErrors: ['tool-error', 'input-validation-failed'],
  conversationPolicy: { hitl: { exempt: ['acme.lookup'] }, maxSteps: 6, maxToolCalls: 12 },
};
`;

async function indexAgent(agentText: string): Promise<{ agent?: IndexAgent; error?: string }> {
  const pack = await makePack({
    'kindgi.config.mjs': configText(),
    'tools/lookup.mjs': SDK_TOOL,
    'tools/send.mjs': VERSIONED_TOOL,
    'agents/helper.mjs': agentText,
  });
  const outcome = await runIndexer({ packDir: pack, ...PINNED });
  if (outcome.kind === 'err') return { error: outcome.error.fileErrors?.[0]?.message ?? outcome.error.message };
  const index = JSON.parse(await readFile(join(pack, 'dist', 'index.json'), 'utf8'));
  expect(validatePackIndex(index)).toBe(true);
  return { agent: index.agents[0] };
}

describe('an agent entry carries what a turn needs', () => {
  it('pins tool definitions, keeps ids and ranges, and copies model, toolErrors and conversationPolicy', async () => {
    const { agent, error } = await indexAgent(AGENT);
    expect(error).toBeUndefined();
    expect(agent).toEqual({
      id: 'acme.helper',
      version: '1.0.0',
      modulePath: 'agents/helper.mjs',
      instructions: 'Help.',
      description: 'Helps.',
      model: 'fast',
      tools: [
        { id: 'acme.lookup', range: '1.0.0' },
        { id: 'acme.send', range: '2.1.0' },
        'acme.other',
        { id: 'other.fetch', range: '^1.2.0' },
      ],
      guardrails: ['acme.cites', 'acme.no-pii'],
      toolErrors: ['tool-error', 'input-validation-failed'],
      conversationPolicy: { hitl: { exempt: ['acme.lookup'] }, maxSteps: 6, maxToolCalls: 12 },
    });
  });

  it.each([
    [
      "toolErrors: ['Tool Error']",
      'agents/helper.mjs: agent "acme.helper" is not a valid agent entry at /toolErrors/0: must match pattern "^[a-z][a-z0-9]*(-[a-z0-9]+)*$"',
    ],
    [
      'conversationPolicy: { maxSteps: 0 }',
      'agents/helper.mjs: agent "acme.helper" is not a valid agent entry at /conversationPolicy/maxSteps: must be >= 1',
    ],
    [
      "conversationPolicy: { hitl: 'yes' }",
      'agents/helper.mjs: agent "acme.helper" is not a valid agent entry at /conversationPolicy/hitl: must be boolean',
    ],
    [
      "model: ''",
      'agents/helper.mjs: agent "acme.helper" is not a valid agent entry at /model: must NOT have fewer than 1 characters',
    ],
    [
      'toolErrors: [() => 1]',
      'agents/helper.mjs: agent "acme.helper".toolErrors[0] is a function, which JSON cannot carry',
    ],
  ])('refuses %s', async (field, message) => {
    const { error } = await indexAgent(`export default { id: 'acme.helper', instructions: 'Help.', ${field} };\n`);
    expect(error).toBe(message);
  });
});
