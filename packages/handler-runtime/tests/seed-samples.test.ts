import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunCheckBinding, RunHandlerBinding } from '@kindgi/bindings';
import { loadKindgiConfig, runCheck, runHandler, runIndexer } from '@kindgi/handler-runtime';
import { defineBuildExtension, type ImageConfig, prisma } from '@kindgi/handler-runtime/build-extensions';
import { runIndexer as runIndexerFromSubpath } from '@kindgi/handler-runtime/kindgi-index';
import {
  createPackService,
  createPackServiceClient,
  createPackServiceSupervisor,
  PACK_SERVICE_DRAIN_MS,
  readPackServiceConfig,
  startPackService,
} from '@kindgi/handler-runtime/pack-service';
import { PACK_HEADERS, PACK_PROTOCOL_VERSION, parsePackRequest } from '@kindgi/handler-runtime/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A pack like the seed's examples: `acme` with one tool and one guardrail, as plain modules.
let packDir = '';
beforeAll(async () => {
  packDir = mkdtempSync(join(tmpdir(), 'kindgi-handler-runtime-'));
  await mkdir(join(packDir, 'tools'));
  await mkdir(join(packDir, 'guardrails'));
  writeFileSync(join(packDir, 'kindgi.config.mjs'), "export default { pack: { id: 'acme', version: '1.0.0' } };\n");
  writeFileSync(
    join(packDir, 'tools/lookup.mjs'),
    `export default {
  id: 'acme.lookup',
  description: 'Looks a term up',
  input: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  output: { type: 'object', properties: { hits: { type: 'array' } }, required: ['hits'] },
  handler: async (input, ctx) => ({ hits: [input.q, ctx.tenantId] }),
};
`,
  );
  writeFileSync(
    join(packDir, 'guardrails/non-empty.mjs'),
    `export default {
  id: 'acme.non-empty',
  action: { 'on-violation': 'halt' },
  check: { id: 'acme.checks.non-empty', evaluate: (_config, trace) => ({ passed: Boolean(trace.output) }) },
};
`,
  );
});
afterAll(() => rmSync(packDir, { recursive: true, force: true }));

const inputSchema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
const outputSchema = { type: 'object', properties: { hits: { type: 'array' } }, required: ['hits'] };

describe('@kindgi/handler-runtime: the seed’s samples, by their documented paths', () => {
  it('runHandler (from ".") runs one tool call', async () => {
    const abortSignal = new AbortController().signal;
    const outcome = await runHandler({
      tool: { id: 'acme.lookup', modulePath: join(packDir, 'tools/lookup.mjs'), inputSchema, outputSchema },
      input: { q: 'backpay' },
      ctx: { tenantId: 'tenant-1', runId: 'run-1', abortSignal },
    });
    expect(outcome).toEqual({ kind: 'ok', value: { hits: ['backpay', 'tenant-1'] } });
    const invalid = await runHandler({
      tool: { id: 'acme.lookup', modulePath: join(packDir, 'tools/lookup.mjs'), inputSchema, outputSchema },
      input: {},
      ctx: { tenantId: 'tenant-1', runId: 'run-1', abortSignal },
    });
    expect(invalid.kind === 'err' && invalid.error.code).toBe('input-validation-failed');
  });

  it('runCheck (from ".") runs one guardrail check', async () => {
    const outcome = await runCheck({
      check: { id: 'acme.checks.non-empty', modulePath: join(packDir, 'guardrails/non-empty.mjs') },
      config: {},
      trace: { output: 'text' },
    });
    expect(outcome).toEqual({ kind: 'ok', value: { passed: true } });
  });

  it('runIndexer (from "." and "./kindgi-index") writes index.json with pinned versions', async () => {
    expect(runIndexerFromSubpath).toBe(runIndexer);
    const outcome = await runIndexer({
      packDir,
      outputPath: join(packDir, 'dist/index.json'),
      artifactVersion: '20260920.1',
      publishedAt: '2026-09-20T14:32:07.104Z',
    });
    if (outcome.kind !== 'ok') throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
    expect(outcome.value.counts).toEqual({ tools: 1, guardrails: 1, agents: 0, flows: 0 });
    expect(outcome.value.outputPath).toBe(join(packDir, 'dist/index.json'));
  });

  it('loadKindgiConfig (from ".") reads the pack config', async () => {
    const r = await loadKindgiConfig(packDir);
    expect(r.kind === 'ok' && r.value.pack.id).toBe('acme');
    const missing = await loadKindgiConfig(join(packDir, 'tools'));
    expect(missing.kind === 'err' && missing.error.code).toBe('config-not-found');
  });

  it('the protocol and pack-service subpaths export the documented API', () => {
    expect(PACK_PROTOCOL_VERSION).toBe(2);
    expect(PACK_HEADERS.token).toBe('kindgi-pack-token');
    expect(parsePackRequest({ v: 1 })).toMatchObject({ kind: 'err', error: { code: 'unknown-protocol-version' } });
    expect(PACK_SERVICE_DRAIN_MS).toBe(8000);
    for (const fn of [createPackService, startPackService, readPackServiceConfig, createPackServiceSupervisor]) {
      expect(typeof fn).toBe('function');
    }
  });

  it('the client’s invoke and check are runHandler / runCheck bindings', async () => {
    const client = createPackServiceClient({ url: 'http://127.0.0.1:9', token: 't' });
    const runHandlerBinding: RunHandlerBinding = client.invoke;
    const runCheckBinding: RunCheckBinding = client.check;
    const refused = await runHandlerBinding({
      tool: { id: 'acme.lookup' },
      input: {},
      ctx: { tenantId: 't', runId: 'r' },
    });
    expect(refused).toMatchObject({ kind: 'err', error: { code: 'pack-unavailable' } });
    expect(typeof runCheckBinding).toBe('function');
    await client.close();
  });

  it('build-extensions: prisma() and defineBuildExtension() are data for the image', () => {
    const image: ImageConfig = {
      systemPackages: ['openssl'],
      extensions: [prisma({ schema: 'prisma/schema.prisma' }), defineBuildExtension({ name: 'fonts' })],
    };
    expect(image.extensions?.map((extension) => extension.name)).toContain('fonts');
    expect(JSON.stringify(image.extensions?.[0])).toContain('prisma');
  });
});
