import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineGuardrail, KindgiDefinitionError, primitiveKindOf } from '../src/index.js';

const evaluate = () => ({ passed: true });

function messageOf(run: () => unknown): { field: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof KindgiDefinitionError) return { field: error.field, message: error.message };
    throw error;
  }
  throw new Error('expected a KindgiDefinitionError');
}

describe('defineGuardrail', () => {
  it('normalises a string action and fills kind and severity defaults', () => {
    const guardrail = defineGuardrail({
      id: 'acme.cites',
      action: 'halt',
      check: { id: 'acme.cites-check', evaluate },
    });
    expect(primitiveKindOf(guardrail)).toBe('guardrail');
    expect(Object.isFrozen(guardrail)).toBe(true);
    expect(guardrail).toMatchObject({
      id: 'acme.cites',
      kind: 'zero-llm',
      action: { 'on-violation': 'halt' },
      severity: 'error',
      check: { id: 'acme.cites-check' },
    });
    // The inline check is also `evaluate`, where runCheck looks first (`module.default.evaluate`).
    expect(guardrail.evaluate).toBe(evaluate);
  });

  it('keeps an action object with settings', () => {
    const action = { 'on-violation': 'retry', retry: { maxAttempts: 2 } } as const;
    expect(defineGuardrail({ id: 'acme.retry', action, evaluate }).action).toEqual(action);
  });

  it('accepts a top-level evaluate as the inline check', () => {
    const guardrail = defineGuardrail({ id: 'acme.top', action: 'log-only', evaluate });
    expect(guardrail.evaluate).toBe(evaluate);
    expect(typeof guardrail.check === 'object' && guardrail.check.evaluate).toBe(evaluate);
  });

  it('names a built-in check by id, without evaluate', () => {
    const guardrail = defineGuardrail({
      id: 'acme.must-cite',
      action: 'escalate',
      check: 'must-cite',
      severity: 'critical',
      scope: { when: 'runtime-only', agents: ['acme.writer'], tenants: ['t-1'] },
      config: { min: 1 },
    });
    expect(guardrail).toMatchObject({ check: 'must-cite', severity: 'critical', scope: { when: 'runtime-only' } });
    expect('evaluate' in guardrail).toBe(false);
  });

  it('moves a Zod configSchema to configZod and keeps a JSON one', () => {
    const configSchema = z.object({ minLength: z.number().default(1) });
    expect(defineGuardrail({ id: 'acme.z', action: 'halt', configSchema, evaluate }).configZod).toBe(configSchema);
    const json = { type: 'object', properties: { minLength: { type: 'integer', minimum: 0 } } };
    expect(defineGuardrail({ id: 'acme.j', action: 'halt', configSchema: json, evaluate }).configSchema).toEqual(json);
  });

  it.each([
    [
      { action: undefined },
      'action',
      '"action" is required: one of halt, retry, escalate, log-only, compensate, or an object with "on-violation"',
    ],
    [{ action: 'stop' }, 'action', '"action" must be one of halt, retry, escalate, log-only, compensate, got "stop"'],
    [
      { action: { retry: {} } },
      'action.on-violation',
      '"action.on-violation" must be one of halt, retry, escalate, log-only, compensate, got nothing',
    ],
    [{ severity: 'fatal' }, 'severity', '"severity" must be one of info, warn, error, critical, got "fatal"'],
    [
      { scope: { when: 'sometimes' } },
      'scope.when',
      '"scope.when" must be one of always, ci-only, runtime-only, got "sometimes"',
    ],
    [{ scope: { region: 'eu' } }, 'scope.region', '"scope" takes only when, agents, flows and tenants, not "region"'],
    [{ scope: { agents: 'acme.a' } }, 'scope.agents', '"scope.agents" must be a list of strings, got "acme.a"'],
    [
      { evaluate: undefined },
      'check',
      '"check" is required: an inline {evaluate} check, or the id of a built-in check',
    ],
    [
      { check: { id: 'x' }, evaluate: undefined },
      'check',
      '"check" must be a built-in check id or an object with an "evaluate" function, got an object',
    ],
    [{ check: 'must-cite' }, 'evaluate', '"evaluate" cannot be combined with a built-in "check" id'],
    [{ id: 'Cites' }, 'id', '"id" must be "<pack-id>.<name>" in kebab-case, got "Cites"'],
    [{ config: [1] }, 'config', '"config" must be an object, got a list'],
  ])('names the field of an invalid definition (%#)', (patch, field, message) => {
    const spec = { id: 'acme.g', action: 'halt', evaluate, ...(patch as object) };
    expect(messageOf(() => defineGuardrail(spec as never))).toEqual({ field, message: `defineGuardrail: ${message}` });
  });
});
