import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptedRequest, ScriptStep } from '@kindgi/test-services/model-server';
import { copyExamplePack } from './pack-fixtures.js';

// A tool that changes something (mutating by default): notes each execution in a log file, then waits for a
// release file when the call names one, so a test can kill the server mid-call and count executions.
const COUNT_REFUND = `import { appendFileSync, existsSync } from 'node:fs';
import { defineTool } from '@kindgi/sdk';

type RefundInput = { log: string; release?: string; amount: number };

export default defineTool({
  id: 'acme.count-refund',
  description: 'Refunds an amount; notes each execution in a log file.',
  input: {
    type: 'object',
    required: ['log', 'amount'],
    properties: { log: { type: 'string' }, release: { type: 'string' }, amount: { type: 'integer', minimum: 1 } },
    additionalProperties: false,
  },
  output: { type: 'object' },
  limits: { timeoutMs: 120000 },
  handler: async (input: RefundInput, ctx) => {
    appendFileSync(input.log, 'refund ' + ctx.runId + '\\n');
    while (input.release !== undefined && !existsSync(input.release)) {
      if (ctx.abortSignal.aborted) throw new Error('aborted');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { refunded: input.amount };
  },
});
`;

const THROWING_CHECK = `import { defineGuardrail } from '@kindgi/sdk';

export default defineGuardrail({
  id: 'acme.exploding-check',
  action: { 'on-violation': 'log-only' },
  severity: 'warn',
  check: {
    id: 'acme.checks.exploding',
    evaluate: () => {
      throw new Error('check exploded');
    },
  },
});
`;

const IMPORTS: Record<string, string> = {
  exploding: '../../guardrails/exploding-check/index.js',
  countRefund: '../../tools/count-refund/index.js',
  lookupCase: '../../tools/lookup-case/index.js',
};

const agent = (id: string, imports: string[], body: string) => `import { defineAgent } from '@kindgi/sdk';
${imports.map((name) => `import ${name} from '${IMPORTS[name]}';`).join('\n')}

export default defineAgent({
  id: '${id}',
  version: '1.0.0',
  instructions: 'Help with refunds.',
  ${body}
});
`;

const AGENTS: Record<string, string> = {
  // Asks before the refund (approval gates on: anything not read-only).
  'gated-agent': agent(
    'acme.gated-agent',
    ['lookupCase', 'countRefund'],
    'tools: [lookupCase, countRefund],\n  conversationPolicy: { hitl: true },',
  ),
  // Refunds without asking; the model may fix bad arguments; three model calls at most.
  'refund-agent': agent(
    'acme.refund-agent',
    ['lookupCase', 'countRefund'],
    "tools: [lookupCase, countRefund],\n  toolErrors: ['input-validation-failed'],\n  conversationPolicy: { maxSteps: 3 },",
  ),
  // Its guardrail's check throws: an evaluation error, not a violation.
  'exploding-agent': agent(
    'acme.exploding-agent',
    ['lookupCase', 'exploding'],
    'tools: [lookupCase],\n  guardrails: [exploding],',
  ),
};

/** A copy of the example pack with the agents, tool and guardrail above, and a folder its code can write. */
export function copyAgentPack(root: string): { packDir: string; scratch: string } {
  const packDir = copyExamplePack(root);
  const files: Record<string, string> = {
    'tools/count-refund/index.ts': COUNT_REFUND,
    'guardrails/exploding-check/index.ts': THROWING_CHECK,
  };
  for (const [name, text] of Object.entries(AGENTS)) files[`agents/${name}/index.ts`] = text;
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(packDir, path, '..'), { recursive: true });
    writeFileSync(join(packDir, path), text);
  }
  const scratch = join(root, 'scratch');
  mkdirSync(scratch);
  chmodSync(scratch, 0o777);
  return { packDir, scratch };
}

/** How many times `acme.count-refund` ran for each run id, from its log. */
export function refundCount(log: string, runId: string): number {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return 0;
  }
  return text.split('\n').filter((line) => line === `refund ${runId}`).length;
}

/** A tool call of the scripted model: the function name the provider sees for a tool id. */
export function call(toolId: string, args: unknown, id?: string): { name: string; arguments: string; id?: string } {
  const name = toolId.replace(/[^a-zA-Z0-9_-]/g, '_');
  return { name, arguments: typeof args === 'string' ? args : JSON.stringify(args), ...(id ? { id } : {}) };
}

/** What the model is asked to do, by the first line of the user's message: `<scenario> …`. */
export type Scenario = (step: number, request: ScriptedRequest) => ScriptStep;

/**
 * A model script that reads the scenario from the user's message and the step from the assistant messages
 * so far: many runs, on several servers, share one scripted model.
 */
export function scenarioScript(scenarios: Record<string, Scenario>) {
  return (_index: number, request: ScriptedRequest): ScriptStep => {
    const user = request.body.messages.find((message) => message.role === 'user')?.content ?? '';
    const name = String(user).split(' ')[0] ?? '';
    const step = request.body.messages.filter((message) => message.role === 'assistant').length;
    const scenario = scenarios[name];
    return scenario ? scenario(step, request) : { kind: 'text', text: `no scenario ${name}` };
  };
}
