import { randomBytes } from 'node:crypto';
import { parseSecretKey } from '@kindgi/bindings';
import type { PackIndex } from '@kindgi/protocol';
import {
  createInMemoryRunStore,
  createInMemorySecretStore,
  createInMemoryToolRegistry,
  createScriptedRunHandler,
  createStaticTokenResolver,
} from '@kindgi/testing';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/index.js';
import { AUTH_A, AUTH_B, envelope, quietLogger, TOKEN_A, TOKEN_B } from './helpers.js';

const PACK: PackIndex = {
  v: 1,
  packId: 'acme',
  packVersion: '1.0.0',
  artifactVersion: 'a1',
  publishedAt: '2026-01-01T00:00:00.000Z',
  tools: [
    {
      id: 'acme.verify',
      input: true,
      output: true,
      modulePath: 'verify.js',
      needsSpec: { secrets: { CITATOR_KEY: { type: 'string', minLength: 20 } } },
    },
    { id: 'acme.plain', input: true, output: true, modulePath: 'plain.js' },
  ],
  guardrails: [],
  agents: [],
  flows: [],
};

const VALUE = 'citator-key-0123456789abcdef';

function makeSecretsApp() {
  const key = parseSecretKey(randomBytes(32).toString('base64'));
  if (key.kind !== 'ok') throw new Error(key.error);
  const store = createInMemorySecretStore({ current: key.value, previous: [] });
  const seen: unknown[] = [];
  const app = createApp({
    resolveToken: createStaticTokenResolver({
      [TOKEN_A]: { tenantId: 'tenant-a', userId: 'alice' },
      [TOKEN_B]: { tenantId: 'tenant-b' },
    }),
    runHandler: createScriptedRunHandler({
      'acme.verify': (_input, call) => {
        seen.push(call.ctx.secrets);
        return { verified: true };
      },
      'acme.plain': (_input, call) => {
        seen.push(call.ctx.secrets);
        return {};
      },
    }),
    toolRegistry: createInMemoryToolRegistry([PACK]),
    runStore: createInMemoryRunStore(),
    secrets: { store },
    logger: quietLogger,
  });
  return { app, seen };
}

const put = (value: unknown, headers: Record<string, string> = AUTH_A) => ({
  method: 'PUT',
  headers: { ...headers, 'content-type': 'application/json' },
  body: JSON.stringify(value),
});
const invoke = (headers: Record<string, string> = AUTH_A) => ({
  method: 'POST',
  headers: { ...headers, 'content-type': 'application/json' },
  body: JSON.stringify({ input: {} }),
});

describe('/v1/secrets', () => {
  it('sets a secret write-only: 201 then 200 with versions, metadata back, never the value', async () => {
    const { app } = makeSecretsApp();
    const first = await app.request('/v1/secrets/CITATOR_KEY', put({ value: VALUE }));
    expect(first.status).toBe(201);
    const body = await first.json();
    expect(body).toMatchObject({ name: 'CITATOR_KEY', env: 'production', version: 1, updatedBy: 'alice' });
    const second = await app.request('/v1/secrets/CITATOR_KEY', put({ value: `${VALUE}-2` }));
    expect(second.status).toBe(200);
    expect(await second.json()).toMatchObject({ version: 2 });
    const staging = await app.request('/v1/secrets/CITATOR_KEY', put({ value: VALUE, env: 'staging' }));
    expect(await staging.json()).toMatchObject({ env: 'staging', version: 1 });

    const listed = await app.request('/v1/secrets', { headers: AUTH_A });
    const page = (await listed.json()) as { data: { env: string; name: string }[]; hasMore: boolean };
    expect(page.data.map((s) => `${s.env}/${s.name}`)).toEqual(['production/CITATOR_KEY', 'staging/CITATOR_KEY']);
    const one = await app.request('/v1/secrets/CITATOR_KEY?env=staging', { headers: AUTH_A });
    expect(await one.json()).toMatchObject({ name: 'CITATOR_KEY', env: 'staging', version: 1 });
    const texts = [JSON.stringify(body), JSON.stringify(page)];
    for (const text of texts) expect(text).not.toContain(VALUE);

    const deleted = await app.request('/v1/secrets/CITATOR_KEY?env=staging', { method: 'DELETE', headers: AUTH_A });
    expect(deleted.status).toBe(200);
    const gone = await app.request('/v1/secrets/CITATOR_KEY?env=staging', { headers: AUTH_A });
    expect(gone.status).toBe(404);
    expect((await envelope(gone)).code).toBe('secret-not-found');
    const audit = (await (await app.request('/v1/audit/secrets', { headers: AUTH_A })).json()) as {
      data: { action: string; env: string; version: number; actor: string }[];
    };
    expect(audit.data.map((entry) => [entry.action, entry.env, entry.version, entry.actor])).toEqual([
      ['set', 'production', 1, 'alice'],
      ['set', 'production', 2, 'alice'],
      ['set', 'staging', 1, 'alice'],
      ['delete', 'staging', 1, 'alice'],
    ]);
  });

  it("keeps tenants apart: B cannot read, list, overwrite, delete or resolve A's secret", async () => {
    const { app, seen } = makeSecretsApp();
    await app.request('/v1/secrets/CITATOR_KEY', put({ value: VALUE }));
    expect((await app.request('/v1/secrets/CITATOR_KEY', { headers: AUTH_B })).status).toBe(404);
    expect(await (await app.request('/v1/secrets', { headers: AUTH_B })).json()).toEqual({ data: [], hasMore: false });
    expect((await app.request('/v1/secrets/CITATOR_KEY', { method: 'DELETE', headers: AUTH_B })).status).toBe(404);
    expect(await (await app.request('/v1/audit/secrets', { headers: AUTH_B })).json()).toEqual({
      data: [],
      hasMore: false,
    });
    const refused = await app.request('/v1/tools/acme.verify/invoke', invoke(AUTH_B));
    expect(refused.status).toBe(422);
    expect(seen).toEqual([]);
    // B's own value is B's; A's is untouched.
    expect((await app.request('/v1/secrets/CITATOR_KEY', put({ value: 'b'.repeat(24) }, AUTH_B))).status).toBe(201);
    expect(await (await app.request('/v1/secrets/CITATOR_KEY', { headers: AUTH_A })).json()).toMatchObject({
      version: 1,
      updatedBy: 'alice',
    });
    expect((await app.request('/v1/tools/acme.verify/invoke', invoke())).status).toBe(200);
    expect(seen).toEqual([{ CITATOR_KEY: VALUE }]);
  });

  it('refuses bad names, envs, values and bodies with typed 400s, storing nothing', async () => {
    const { app } = makeSecretsApp();
    const cases: [string, RequestInit, string][] = [
      ['/v1/secrets/lower_case', put({ value: VALUE }), 'secret-name-invalid'],
      ['/v1/secrets/A_KEY', put({ value: VALUE, env: 'Not Valid' }), 'secret-env-invalid'],
      ['/v1/secrets/A_KEY', put({ value: '' }), 'secret-value-invalid'],
      ['/v1/secrets/A_KEY', put({ value: 'x'.repeat(16 * 1024 + 1) }), 'secret-value-invalid'],
      ['/v1/secrets/A_KEY', put({ value: 42 }), 'validation-failed'],
      ['/v1/secrets/A_KEY', put({ value: VALUE, extra: true }), 'unknown-field'],
      [
        '/v1/secrets/A_KEY',
        { method: 'PUT', headers: { ...AUTH_A, 'content-type': 'application/json' }, body: '{"value":' },
        'bad-input',
      ],
    ];
    for (const [path, init, code] of cases) {
      const res = await app.request(path, init);
      expect(res.status, `${path} ${String(init.body).slice(0, 40)}`).toBe(400);
      const error = await envelope(res);
      expect(error.code).toBe(code);
      expect(JSON.stringify(error)).not.toContain(VALUE);
    }
    expect(await (await app.request('/v1/secrets', { headers: AUTH_A })).json()).toEqual({ data: [], hasMore: false });
  });

  it('resolves on every call: missing and invalid are 422 naming the secret, the pack is not called', async () => {
    const { app, seen } = makeSecretsApp();
    const missing = await app.request('/v1/tools/acme.verify/invoke', invoke());
    expect(missing.status).toBe(422);
    expect(await envelope(missing)).toMatchObject({
      code: 'secret-missing',
      details: { secrets: ['CITATOR_KEY'], env: 'production' },
    });
    await app.request('/v1/secrets/CITATOR_KEY', put({ value: 'short' }));
    const invalid = await app.request('/v1/tools/acme.verify/invoke', invoke());
    expect(invalid.status).toBe(422);
    const error = await envelope(invalid);
    expect(error).toMatchObject({ code: 'secret-invalid', details: { secrets: ['CITATOR_KEY'] } });
    expect(JSON.stringify(error)).not.toContain('short"');
    expect(seen).toEqual([]);
    // A tool declaring nothing gets nothing, whatever the tenant has set.
    expect((await app.request('/v1/tools/acme.plain/invoke', invoke())).status).toBe(200);
    expect(seen).toEqual([undefined]);
    const tool = (await (await app.request('/v1/tools/acme.verify', { headers: AUTH_A })).json()) as {
      secrets?: unknown;
    };
    expect(tool.secrets).toEqual({ CITATOR_KEY: { type: 'string', minLength: 20 } });
  });

  it('honours Idempotency-Key on PUT: a retry replays the answer without a new version', async () => {
    const { app } = makeSecretsApp();
    const keyed = (value: string) => {
      const init = put({ value });
      return { ...init, headers: { ...(init.headers as Record<string, string>), 'idempotency-key': 'set-key-1' } };
    };
    const first = await app.request('/v1/secrets/CITATOR_KEY', keyed(VALUE));
    const again = await app.request('/v1/secrets/CITATOR_KEY', keyed(VALUE));
    expect(again.headers.get('x-idempotent-replay')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    const other = await app.request('/v1/secrets/CITATOR_KEY', keyed(`${VALUE}-other`));
    expect(other.status).toBe(409);
    expect(await (await app.request('/v1/secrets/CITATOR_KEY', { headers: AUTH_A })).json()).toMatchObject({
      version: 1,
    });
  });

  it('fails a run with secret-missing, before the pack', async () => {
    const { app, seen } = makeSecretsApp();
    const res = await app.request('/v1/runs', {
      method: 'POST',
      headers: { ...AUTH_A, 'content-type': 'application/json' },
      body: JSON.stringify({ toolId: 'acme.verify', input: {}, options: { wait: true } }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ status: 'failed', error: { code: 'secret-missing' } });
    expect(seen).toEqual([]);
  });
});
