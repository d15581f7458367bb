// The contract shared with @kindgi/call-runner: what defineTool/defineGuardrail return is what the
// runner resolves and runs (handler and inputZod on the definition; the inline check as `evaluate`).
import { runCheck, runHandler } from '@kindgi/call-runner';
import { toJSONSchemaSync } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineGuardrail, defineTool } from '../src/index.js';

function jsonSchemaOf(schema: unknown, io: 'input' | 'output') {
  const converted = toJSONSchemaSync(schema, { io });
  if (converted.kind === 'err') throw new Error(converted.error.message);
  return converted.value;
}

describe('sdk definitions run through the handler runner', () => {
  const tool = defineTool({
    id: 'acme.charge',
    description: 'Charges an amount.',
    input: z.object({
      amount: z.string().transform((text) => Math.round(Number.parseFloat(text) * 100)),
      currency: z.enum(['EUR', 'USD']).default('EUR'),
    }),
    output: z.object({ cents: z.number().int(), currency: z.string(), tenant: z.string() }),
    handler: (input, ctx) => ({ cents: input.amount, currency: input.currency, tenant: ctx.tenantId }),
  });

  it('runs a defineTool export with its Zod transforms and defaults', async () => {
    const outcome = await runHandler({
      tool: {
        id: tool.id,
        modulePath: 'virtual:charge',
        inputSchema: jsonSchemaOf(tool.inputZod, 'input'),
        outputSchema: jsonSchemaOf(tool.outputZod, 'output'),
      },
      input: { amount: '12.34' },
      ctx: { tenantId: 't-9', runId: 'r-1' },
      importHandler: async () => ({ default: tool }),
    });
    expect(outcome).toEqual({ kind: 'ok', value: { cents: 1234, currency: 'EUR', tenant: 't-9' } });
  });

  it('runs a defineGuardrail export with an inline check', async () => {
    const guardrail = defineGuardrail({
      id: 'acme.min-length',
      action: 'halt',
      configSchema: z.object({ minLength: z.number().int().min(0).default(1) }),
      check: {
        id: 'acme.min-length-check',
        evaluate: (config, trace) => {
          const text = String(trace.output ?? '');
          return text.length >= (config.minLength ?? 1) ? { passed: true } : { passed: false, reason: 'too short' };
        },
      },
    });
    const outcome = await runCheck({
      check: {
        id: 'acme.min-length-check',
        modulePath: 'virtual:min-length',
        configSchema: jsonSchemaOf(guardrail.configZod, 'input'),
      },
      config: { minLength: 5 },
      trace: { output: 'hey' },
      importCheck: async () => ({ default: guardrail }),
    });
    expect(outcome).toEqual({ kind: 'ok', value: { passed: false, reason: 'too short' } });
  });
});
