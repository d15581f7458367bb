import { ok, type PackIndex, type PackResponse } from '@kindgi/protocol';
import { describe, expect, it } from 'vitest';
import type { PackHost } from '../src/packs/pack-host.js';
import { remotePackSchema } from '../src/packs/remote-pack.js';
import { guardSecretsTransport, insecureSecretsProblem, secureForSecrets } from '../src/packs/secrets-transport.js';

const index = (needsSpec?: Record<string, unknown>): PackIndex => ({
  v: 1,
  packId: 'far',
  packVersion: '1.0.0',
  artifactVersion: 'a1',
  publishedAt: '2026-01-01T00:00:00.000Z',
  tools: [{ id: 'far.tool', input: true, output: true, modulePath: 't.js', ...(needsSpec ? { needsSpec } : {}) }],
  guardrails: [],
  agents: [],
  flows: [],
});
const WITH_SECRETS = index({ secrets: { API_KEY: { type: 'string' } } });
const pack = (url: string, allowInsecureSecrets?: boolean) =>
  remotePackSchema.parse({ url, token: 'tok', ...(allowInsecureSecrets ? { allowInsecureSecrets } : {}) });

describe('secrets and a remote pack transport', () => {
  it('lets secrets travel over https or loopback only, unless the pack allows plain http', () => {
    expect(secureForSecrets('https://packs.internal:8443')).toBe(true);
    expect(secureForSecrets('http://127.0.0.1:8080')).toBe(true);
    expect(secureForSecrets('http://localhost:8080')).toBe(true);
    expect(secureForSecrets('http://[::1]:8080')).toBe(true);
    expect(secureForSecrets('http://10.0.0.7:8080')).toBe(false);
    expect(insecureSecretsProblem(pack('http://10.0.0.7:8080'), WITH_SECRETS)).toBe(
      'http://10.0.0.7:8080: pack far has tools declaring tenant secrets (far.tool) and is reached over plain http on another machine: use https, or set "allowInsecureSecrets": true on it',
    );
    expect(insecureSecretsProblem(pack('http://10.0.0.7:8080'), index())).toBeUndefined();
    expect(insecureSecretsProblem(pack('http://10.0.0.7:8080', true), WITH_SECRETS)).toBeUndefined();
    expect(insecureSecretsProblem(pack('https://10.0.0.7:8080'), WITH_SECRETS)).toBeUndefined();
  });

  it('refuses, unsent, a call carrying secrets to an insecure pack (an index refreshed after the start)', async () => {
    const sent: unknown[] = [];
    const host: PackHost = {
      dir: 'http://10.0.0.7:8080',
      index: WITH_SECRETS,
      serving: true,
      call: async (call) => {
        sent.push(call);
        return ok({ v: 2, kind: 'result', output: {} } as PackResponse);
      },
      close: async () => {},
    };
    const guarded = guardSecretsTransport(host, pack('http://10.0.0.7:8080'));
    const ctx = { tenantId: 't', runId: 'r' };
    const refused = await guarded.call({
      kind: 'invoke',
      tool: { id: 'far.tool' },
      input: {},
      ctx: { ...ctx, secrets: { API_KEY: 'value-never-sent' } },
    });
    expect(refused.kind === 'err' && refused.error).toMatchObject({ code: 'pack-unavailable', status: 503 });
    expect(sent).toEqual([]);
    expect((await guarded.call({ kind: 'invoke', tool: { id: 'far.tool' }, input: {}, ctx })).kind).toBe('ok');
    expect(sent).toHaveLength(1);
    expect(guardSecretsTransport(host, pack('https://10.0.0.7:8080'))).toBe(host);
  });
});
