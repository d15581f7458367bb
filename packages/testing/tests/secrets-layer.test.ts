import { randomBytes } from 'node:crypto';
import { composePackCall, type PackCall, parseSecretKey, secretsLayer } from '@kindgi/bindings';
import { err, ok, type PackResponse } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import { createInMemorySecretStore } from '../src/index.js';

const parsed = parseSecretKey(randomBytes(32).toString('base64'));
if (parsed.kind !== 'ok') throw new Error(parsed.error);
const key = parsed;
const DECLARED: Record<string, Record<string, unknown>> = {
  'acme.verify': { CITATOR_KEY: { type: 'string', minLength: 20 }, REGION: { type: 'string' } },
  'acme.plain': {},
};

function pipeline() {
  const store = createInMemorySecretStore({ current: key.value, previous: [] });
  const delivered: PackCall[] = [];
  const transport = async (call: PackCall) => {
    delivered.push(call);
    return ok({ v: 2, kind: 'result', output: {} } as PackResponse);
  };
  const callPack = composePackCall(
    secretsLayer({ resolve: store.resolve, env: 'production', declared: (call) => DECLARED[call.tool.id] }),
  )(transport);
  const invoke = (toolId: string, tenantId = 't1', secrets?: Record<string, unknown>) =>
    callPack({
      kind: 'invoke',
      tool: { id: toolId },
      input: {},
      ctx: { tenantId, runId: 'r1', ...(secrets ? { secrets } : {}) },
    });
  return { store, delivered, invoke };
}

describe('the secrets layer', () => {
  it('sends exactly the declared secrets of the call tenant, and strips what a caller sent', async () => {
    const { store, delivered, invoke } = pipeline();
    for (const [name, value] of [
      ['CITATOR_KEY', 'k'.repeat(24)],
      ['REGION', 'eu'],
      ['OTHER', 'not-declared'],
    ] as const) {
      await store.put({ tenantId: 't1', env: 'production', name, value, actor: 'u1' });
    }
    expect((await invoke('acme.verify', 't1', { INJECTED: 'x' })).kind).toBe('ok');
    expect(delivered[0]?.kind === 'invoke' && delivered[0].ctx.secrets).toEqual({
      CITATOR_KEY: 'k'.repeat(24),
      REGION: 'eu',
    });
    expect((await invoke('acme.plain', 't1', { INJECTED: 'x' })).kind).toBe('ok');
    expect(delivered[1]?.kind === 'invoke' && delivered[1].ctx.secrets).toBeUndefined();
  });

  it('refuses before the pack: missing names, then values failing their schema, by name only', async () => {
    const { store, delivered, invoke } = pipeline();
    expect(await invoke('acme.verify', 't2')).toEqual(
      err({
        code: 'secret-missing',
        message:
          'Tool "acme.verify" needs secrets that are not set for this tenant in env "production": CITATOR_KEY, REGION',
        details: { secrets: ['CITATOR_KEY', 'REGION'], env: 'production' },
      }),
    );
    await store.put({ tenantId: 't2', env: 'production', name: 'CITATOR_KEY', value: 'too-short', actor: 'u' });
    await store.put({ tenantId: 't2', env: 'production', name: 'REGION', value: 'eu', actor: 'u' });
    const invalid = await invoke('acme.verify', 't2');
    expect(invalid.kind === 'err' && invalid.error).toMatchObject({
      code: 'secret-invalid',
      details: { secrets: ['CITATOR_KEY'] },
    });
    expect(JSON.stringify(invalid)).not.toContain('too-short');
    expect(delivered).toEqual([]);
  });

  it('answers pack-unavailable (did not run) when the store cannot answer', async () => {
    const callPack = composePackCall(
      secretsLayer({
        resolve: async () => err({ code: 'storage-unavailable', message: 'down' }),
        env: 'production',
        declared: () => ({ A_KEY: {} }),
      }),
    )(async () => ok({ v: 2, kind: 'result', output: {} } as PackResponse));
    const reply = await callPack({ kind: 'invoke', tool: { id: 'x' }, input: {}, ctx: { tenantId: 't', runId: 'r' } });
    expect(reply.kind === 'err' && reply.error).toMatchObject({ code: 'pack-unavailable', status: 503 });
  });
});
