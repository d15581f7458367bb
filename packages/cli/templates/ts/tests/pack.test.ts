import type { ToolContext } from '@kindgi/sdk';
import { describe, expect, it } from 'vitest';
import answerNotEmpty from '../guardrails/answer-not-empty/index.js';
import greet from '../tools/greet/index.js';

const silent = () => undefined;

function context(): ToolContext {
  return {
    tenantId: 't-test',
    runId: 'run-test',
    abortSignal: new AbortController().signal,
    secrets: {},
    log: { debug: silent, info: silent, warn: silent, error: silent },
  };
}

describe('__PACK_ID__', () => {
  it('greets by name', async () => {
    expect(await greet.handler({ name: 'Ada', greeting: 'Hi' }, context())).toEqual({ message: 'Hi, Ada!' });
  });

  it('refuses an empty answer and passes one that says something', async () => {
    const { check } = answerNotEmpty;
    if (typeof check === 'string') throw new Error('expected an inline check');
    const bindings = { abortSignal: new AbortController().signal };
    expect((await check.evaluate({ minLength: 1 }, { output: '  ' }, bindings)).passed).toBe(false);
    expect((await check.evaluate({ minLength: 1 }, { output: 'Hello' }, bindings)).passed).toBe(true);
  });
});
