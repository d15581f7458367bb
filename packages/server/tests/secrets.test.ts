import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type OtlpReceiver, startOtlpReceiver } from '@kindgi/test-services/otlp';
import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  makeTempDir,
  type RunningServer,
  spawnServer,
  startServer,
  stderrOf,
  stopAllServers,
  terminate,
  writeConfig,
} from './harness.js';
import { api } from './http.js';
import { copyExamplePack } from './pack-fixtures.js';

// A tool that does everything careless code does with a secret: logs it, prints it, throws it.
const LEAKY_TOOL = `import { defineTool } from '@kindgi/sdk';

export default defineTool({
  id: 'acme.leaky',
  description: 'Mishandles its secret.',
  needsSpec: { secrets: { CITATOR_KEY: { type: 'string', minLength: 20 } } },
  input: { type: 'object' },
  output: { type: 'object' },
  handler: async (_input, ctx) => {
    const key = String(ctx.secrets.CITATOR_KEY);
    ctx.log.info('calling the citator with ' + key, { key });
    console.log('key is', key);
    console.error(JSON.stringify({ key }));
    throw new Error('the citator refused key ' + key);
  },
});
`;

const TENANT_1 = 'tok-secrets-tenant-one-01';
const TENANT_2 = 'tok-secrets-tenant-two-02';
const TOKENS = [
  { token: TENANT_1, tenantId: 'tenant-1', userId: 'alice' },
  { token: TENANT_2, tenantId: 'tenant-2', userId: 'bob' },
];
const CITATION = '[Brown v. Board, p. 483]';
/** Every value set during this file, to search for afterwards. */
const values: string[] = [];

function newValue(label: string): string {
  const value = `${label}-${randomBytes(12).toString('hex')}`;
  values.push(value);
  return value;
}

const signature = (key: string) => createHmac('sha256', key).update(CITATION).digest('hex').slice(0, 16);
const verify = (url: string, token: string) =>
  api(url, token, 'POST', '/v1/tools/acme.verify-citation/invoke', { input: { citation: CITATION } });
const putSecret = (url: string, token: string, value: string) =>
  api(url, token, 'PUT', '/v1/secrets/CITATOR_KEY', { value });

/** The bytes of every file under `dir`. */
function filesUnder(dir: string): Buffer {
  const parts: Buffer[] = [];
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, name);
    if (statSync(path).isFile()) parts.push(readFileSync(path));
  }
  return Buffer.concat(parts);
}

function expectNoValue(haystack: string | Buffer, where: string, searched: readonly string[] = values): void {
  const bytes = Buffer.isBuffer(haystack) ? haystack : Buffer.from(haystack);
  for (const value of searched) {
    expect(bytes.includes(value), `${where} holds a secret value`).toBe(false);
    expect(bytes.includes(Buffer.from(value).toString('base64')), `${where} holds a secret value (base64)`).toBe(false);
  }
}

const METRICS_TOKEN = 'secrets-metrics-token-0001';

describe('tenant secrets through kindgi-server (embedded)', () => {
  let server: RunningServer;
  let dataDir: string;
  let receiver: OtlpReceiver;
  const responses: string[] = [];
  const record = <T extends { body: unknown; headers: Headers }>(answer: T): T => {
    responses.push(JSON.stringify(answer.body), JSON.stringify([...answer.headers]));
    return answer;
  };

  beforeAll(async () => {
    const root = makeTempDir('secrets');
    dataDir = join(root, 'data');
    const pack = copyExamplePack(root);
    mkdirSync(join(pack, 'tools', 'leaky'), { recursive: true });
    writeFileSync(join(pack, 'tools', 'leaky', 'index.ts'), LEAKY_TOOL);
    receiver = await startOtlpReceiver();
    server = await startServer(
      writeConfig(root, dataDir, {
        tokens: TOKENS,
        packs: [{ dir: pack, env: { ACME_API_BASE: 'https://cases.acme.invalid' } }],
        metrics: { enabled: true, token: METRICS_TOKEN },
      }),
      {
        env: {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_BSP_SCHEDULE_DELAY: '20',
        },
      },
    );
  }, 120_000);
  afterAll(async () => {
    await stopAllServers();
    await receiver?.close();
    cleanupTempDirs();
  });

  it('resolves the call tenant’s secret on every call, refuses missing and invalid ones before the pack', async () => {
    const missing = record(await verify(server.url, TENANT_1));
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({
      error: { code: 'secret-missing', details: { secrets: ['CITATOR_KEY'], env: 'production' } },
    });

    const one = newValue('tenant-one-key');
    expect(record(await putSecret(server.url, TENANT_1, one)).status).toBe(201);
    const called = record(await verify(server.url, TENANT_1));
    expect(called.status).toBe(200);
    expect(called.body).toEqual({ output: { citation: CITATION, signature: signature(one) } });
    // Tenant 2 has none: its call fails, and tenant 1's value is never used for it.
    expect(record(await verify(server.url, TENANT_2)).status).toBe(422);

    const short = newValue('short');
    expect(record(await putSecret(server.url, TENANT_2, short.slice(0, 10))).status).toBe(201);
    const invalid = record(await verify(server.url, TENANT_2));
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ error: { code: 'secret-invalid', details: { secrets: ['CITATOR_KEY'] } } });

    const two = newValue('tenant-one-key-v2');
    expect(record(await putSecret(server.url, TENANT_1, two)).body).toMatchObject({ version: 2, updatedBy: 'alice' });
    expect(record(await verify(server.url, TENANT_1)).body).toEqual({
      output: { citation: CITATION, signature: signature(two) },
    });
    expect(record(await api(server.url, TENANT_1, 'DELETE', '/v1/secrets/CITATOR_KEY')).status).toBe(200);
    expect(record(await verify(server.url, TENANT_1)).body).toMatchObject({ error: { code: 'secret-missing' } });
    const run = record(
      await api(server.url, TENANT_1, 'POST', '/v1/runs', {
        toolId: 'acme.verify-citation',
        input: { citation: CITATION },
        options: { wait: true },
      }),
    );
    expect(run.body).toMatchObject({ status: 'failed', error: { code: 'secret-missing' } });
  });

  it('keeps tenants apart and refuses bad input with typed 4xx, storing nothing', async () => {
    const mine = newValue('isolated-key');
    expect((await putSecret(server.url, TENANT_1, mine)).status).toBe(201);
    // Tenant 2 sees none of tenant 1's: not by name, not in its listing or audit, and cannot delete it.
    const only = newValue('only-tenant-one');
    expect((await api(server.url, TENANT_1, 'PUT', '/v1/secrets/ONLY_ONE', { value: only })).status).toBe(201);
    expect((await api(server.url, TENANT_2, 'GET', '/v1/secrets/ONLY_ONE')).status).toBe(404);
    expect((await api(server.url, TENANT_2, 'DELETE', '/v1/secrets/ONLY_ONE')).status).toBe(404);
    const listed = (await api(server.url, TENANT_2, 'GET', '/v1/secrets')).body as { data: { updatedBy: string }[] };
    expect(listed.data.every((item) => item.updatedBy === 'bob')).toBe(true);
    const trail = (await api(server.url, TENANT_2, 'GET', '/v1/audit/secrets')).body as { data: { actor: string }[] };
    expect(trail.data.every((entry) => entry.actor === 'bob')).toBe(true);
    expect((await api(server.url, TENANT_1, 'GET', '/v1/secrets/ONLY_ONE')).body).toMatchObject({ version: 1 });
    expect((await api(server.url, TENANT_1, 'DELETE', '/v1/secrets/ONLY_ONE')).status).toBe(200);
    const before = (await api(server.url, TENANT_1, 'GET', '/v1/secrets/CITATOR_KEY')).body;
    const bad: [string, unknown, string][] = [
      ['/v1/secrets/lower', { value: 'x'.repeat(24) }, 'secret-name-invalid'],
      ['/v1/secrets/CITATOR_KEY', { value: 'x'.repeat(24), env: 'Prod!' }, 'secret-env-invalid'],
      ['/v1/secrets/CITATOR_KEY', { value: '' }, 'secret-value-invalid'],
      ['/v1/secrets/CITATOR_KEY', { value: 'x'.repeat(16 * 1024 + 1) }, 'secret-value-invalid'],
      ['/v1/secrets/CITATOR_KEY', { value: 12 }, 'validation-failed'],
    ];
    for (const [path, body, code] of bad) {
      const answer = await api(server.url, TENANT_1, 'PUT', path, body);
      expect(answer.status, path).toBe(400);
      expect(answer.body).toMatchObject({ error: { code } });
    }
    const malformed = await fetch(`${server.url}/v1/secrets/CITATOR_KEY`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TENANT_1}`, 'content-type': 'application/json' },
      body: '{"value": "trunc',
    });
    expect(malformed.status).toBe(400);
    expect((await api(server.url, TENANT_1, 'GET', '/v1/secrets/CITATOR_KEY')).body).toEqual(before);
    expect(signature(mine)).toBe(
      ((await verify(server.url, TENANT_1)).body as { output: { signature: string } }).output.signature,
    );
    expect((await api(server.url, TENANT_1, 'DELETE', '/v1/secrets/CITATOR_KEY')).status).toBe(200);
  });

  it('a tool that logs, prints and throws its secret: the caller gets what the pack sent, the log has it redacted', async () => {
    const leaked = newValue('leaky-key');
    expect((await putSecret(server.url, TENANT_2, leaked)).status).toBe(200);
    const thrown = await api(server.url, TENANT_2, 'POST', '/v1/tools/acme.leaky/invoke', { input: {} });
    expect(thrown.status).toBe(502);
    // The pack chose to put it in its error: that reaches its own tenant's caller as sent.
    expect(JSON.stringify(thrown.body)).toContain(leaked);
    await server.waitFor(
      (entry) => entry.event === 'pack-output' && String(entry.message).includes('key is'),
      'the printed line',
    );
    // The call's own record comes last: by then everything the tool wrote has been logged.
    await server.waitFor(
      (entry) => entry.event === 'pack-log' && (entry.record as { id?: string } | undefined)?.id === 'acme.leaky',
      "the leaky call's record",
    );
    const log = stderrOf(server);
    expect(log).toContain('key is [redacted]');
    expect(log).toContain('calling the citator with [redacted]');
    expect(log).toContain('{\\"key\\":\\"[redacted]\\"}');
    expect(log).not.toContain(leaked);
  });

  it('keeps no value in responses, logs or the data directory; the generated key file is 0600', async () => {
    for (const token of [TENANT_1, TENANT_2]) {
      record(await api(server.url, token, 'GET', '/v1/secrets'));
      record(await api(server.url, token, 'GET', '/v1/audit/secrets'));
      record(await api(server.url, token, 'GET', '/v1/tools/acme.verify-citation'));
    }
    // The leaky tool's own error is the one answer that may carry its value (the pack's choice).
    const notThrown = values.filter((value) => !value.startsWith('leaky-key'));
    expectNoValue(responses.join('\n'), 'a response', notThrown);
    expectNoValue(stderrOf(server), "the server's log");
    expectNoValue(filesUnder(dataDir), 'the data directory');
    const metrics = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(metrics.status).toBe(200);
    expectNoValue(await metrics.text(), '/metrics');
    // The spans of a call that carried a secret, from the server and the pack service, all exported.
    const lastKey = newValue('traced-key');
    await putSecret(server.url, TENANT_1, lastKey);
    const traced = await verify(server.url, TENANT_1);
    expect(traced.status).toBe(200);
    await receiver.spanNamed('runHandler acme.verify-citation');
    await receiver.spanNamed('tool acme.verify-citation');
    expectNoValue(JSON.stringify(receiver.spans), 'the exported spans');
    expect(statSync(join(dataDir, 'secrets.key')).mode & 0o777).toBe(0o600);
    const audit = (await api(server.url, TENANT_1, 'GET', '/v1/audit/secrets')).body as { data: { action: string }[] };
    expect(audit.data.map((entry) => entry.action)).toEqual([
      'set',
      'set',
      'delete',
      'set',
      'set',
      'delete',
      'delete',
      'set',
    ]);
  });
});

describe('a secret PUT cut by kill -9', () => {
  afterAll(async () => {
    await stopAllServers();
    cleanupTempDirs();
  });

  it('leaves the old value or the new one, never a torn or unreadable one', async () => {
    const root = makeTempDir('secrets-kill');
    const dataDir = join(root, 'data');
    const config = writeConfig(root, dataDir, { tokens: TOKENS });
    const first = await startServer(config);
    const sent = new Map<number, string>();
    let acknowledged = 0;
    let killed = false;
    // PUTs back to back until the process dies under them; the kill lands while one is in flight.
    const writer = (async () => {
      for (let i = 0; !killed; i++) {
        const value = newValue(`kill-${i}`);
        sent.set(i, value);
        try {
          const answer = await putSecret(first.url, TENANT_1, value);
          if (answer.status === 200 || answer.status === 201)
            acknowledged = (answer.body as { version: number }).version;
        } catch {
          return;
        }
      }
    })();
    while (acknowledged < 20) await new Promise((resolve) => setTimeout(resolve, 10));
    first.child.kill('SIGKILL');
    killed = true;
    await first.exited;
    await writer;

    const second = await startServer(config);
    const meta = await api(second.url, TENANT_1, 'GET', '/v1/secrets/CITATOR_KEY');
    const version = (meta.body as { version: number }).version;
    expect(version).toBeGreaterThanOrEqual(acknowledged);
    const called = await verify(second.url, TENANT_1);
    expect(called.status).toBe(200);
    // The value stored is the one sent as that version (PUT i made version i + 1).
    const stored = sent.get(version - 1) as string;
    expect(called.body).toEqual({ output: { citation: CITATION, signature: signature(stored) } });
  });
});

describe('tenant secrets on two servers sharing PostgreSQL', () => {
  let pg: TestPostgres;
  let databaseUrl: string;
  const key1 = randomBytes(32).toString('base64');
  const key2 = randomBytes(32).toString('base64');

  const start = (label: string, secrets: Record<string, unknown>) => {
    const dir = makeTempDir(`secrets-pg-${label}`);
    return startServer(
      writeConfig(dir, join(dir, 'data'), { tokens: TOKENS, database: { url: databaseUrl }, secrets }),
    );
  };

  beforeAll(async () => {
    pg = await startPostgres();
    databaseUrl = await pg.createDatabase('secrets');
  }, 120_000);
  afterAll(async () => {
    await stopAllServers();
    await pg?.stop();
    cleanupTempDirs();
  }, 120_000);

  /** Calls until `done` holds of the answer (the other server's cache keeps a value for at most 2 s). */
  async function eventually(url: string, done: (answer: { status: number; body: unknown }) => boolean) {
    const started = Date.now();
    for (;;) {
      const answer = await verify(url, TENANT_1);
      if (done(answer) || Date.now() - started > 10_000) return answer;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  const signedWith = (value: string) => (answer: { body: unknown }) =>
    JSON.stringify(answer.body) === JSON.stringify({ output: { citation: CITATION, signature: signature(value) } });

  it('a secret set on A is used on B; updated and deleted likewise; rotation re-wraps; the old key is refused', async () => {
    const [a, b] = await Promise.all([start('a', { key: key1 }), start('b', { key: key1 })]);
    const first = newValue('shared-key');
    expect((await putSecret(a.url, TENANT_1, first)).status).toBe(201);
    expect(signedWith(first)(await eventually(b.url, signedWith(first)))).toBe(true);
    const second = newValue('shared-key-v2');
    expect((await putSecret(b.url, TENANT_1, second)).status).toBe(200);
    expect(signedWith(second)(await eventually(a.url, signedWith(second)))).toBe(true);

    // The documented online rotation, with calls running on the other server throughout. Step 1: every
    // server can read key2 (B, then A, restarted with it as a previous key).
    await terminate(b);
    const b1 = await start('b1', { key: key1, previousKeys: [{ key: key2 }] });
    await terminate(a);
    const a1 = await start('a1', { key: key1, previousKeys: [{ key: key2 }] });
    // Step 2: B makes key2 current and re-wraps every secret under it while A keeps calling.
    let calling = true;
    const statuses: number[] = [];
    const caller = (async () => {
      while (calling) statuses.push((await verify(a1.url, TENANT_1)).status);
    })();
    await terminate(b1);
    const rotating = await start('b2', { key: key2, previousKeys: [{ key: key1 }] });
    await rotating.waitFor((entry) => entry.event === 'secrets-rotated', 'secrets-rotated');
    expect(rotating.records.find((entry) => entry.event === 'secrets-rotated')).toMatchObject({ rewrapped: 1 });
    // A's cache lets calls skip the store for 2 s: keep calling past that, so some read the re-wrapped row.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    calling = false;
    await caller;
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(signedWith(second)(await verify(rotating.url, TENANT_1))).toBe(true);
    // Step 3: key2 alone.
    await terminate(a1);
    const a3 = await start('a3', { key: key2 });
    expect(signedWith(second)(await verify(a3.url, TENANT_1))).toBe(true);
    // A server holding only the old key now refuses to start, naming the key id it lacks.
    const dir = makeTempDir('secrets-pg-old');
    const old = spawnServer([
      '--config',
      writeConfig(dir, join(dir, 'data'), { tokens: TOKENS, database: { url: databaseUrl }, secrets: { key: key1 } }),
    ]);
    expect((await old.exited).code).toBe(1);
    expect(String(old.records.find((entry) => entry.event === 'boot-failed')?.message)).toContain(
      'Secrets are wrapped by keys this server does not hold',
    );

    expect((await api(rotating.url, TENANT_1, 'DELETE', '/v1/secrets/CITATOR_KEY')).status).toBe(200);
    expect((await eventually(rotating.url, (answer) => answer.status === 422)).body).toMatchObject({
      error: { code: 'secret-missing' },
    });
    expectNoValue(pg.dump('secrets'), 'pg_dump');
    expectNoValue(stderrOf(rotating), "the server's log");
  });
});
