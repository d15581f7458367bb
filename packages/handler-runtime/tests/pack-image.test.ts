import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPackServiceClient } from '@kindgi/handler-runtime/pack-service';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningService, runCommand, startService } from './helpers/processes.js';

// The three stages of docs/pack-image.md, with this package's own bins, without a container engine: each
// stage is an empty folder standing for the image's /app, holding only what its COPY lines copy, and each
// RUN/CMD runs there with nothing but the variables the Containerfile declares (`env -i` plus those). The
// Containerfile `kindgi build` renders is performed the same way by packages/cli/tests/build-staged.test.ts.
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const EXAMPLE_PACK = fileURLToPath(new URL('../../example-pack/', import.meta.url));
const NODE = process.execPath;
const SOURCE_DATE_EPOCH = '1758378727';
const ARTIFACT_VERSION = '20250920.1';
const TOKEN = 'pack-image-test-token-0123456789';

const root = mkdtempSync(join(tmpdir(), 'kindgi-pack-image-'));
let service: RunningService | undefined;
afterAll(async () => {
  await service?.stop();
  rmSync(root, { recursive: true, force: true });
});

function stage(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  return dir;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

describe('the pack image of docs/pack-image.md, staged', () => {
  it('builds, indexes byte-identically to a local kindgi-index, and serves a tool call from the runtime stage', async () => {
    for (const file of ['kindgi-index.mjs', 'kindgi-pack-service.mjs', 'kindgi-pack-build/main.js']) {
      if (!existsSync(join(DIST, file)))
        throw new Error(`Build @kindgi/handler-runtime first: dist/${file} is missing`);
    }
    // Stage `build` (WORKDIR /src): the pack's sources and its install. `npm ci` is stood in for by the
    // example pack's own node_modules; the build tool is this package's (node_modules/@kindgi/handler-runtime).
    const src = stage('build');
    for (const part of ['package.json', 'kindgi.config.ts', 'tools', 'guardrails', 'agents', 'flows', 'lib']) {
      cpSync(join(EXAMPLE_PACK, part), join(src, part), { recursive: true });
    }
    symlinkSync(join(EXAMPLE_PACK, 'node_modules'), join(src, 'node_modules'), 'dir');
    const built = await runCommand(
      NODE,
      [join(DIST, 'kindgi-pack-build/main.js'), '--pack-dir', '.', '--out-dir', 'build'],
      src,
      {},
    );
    expect(built, built.stderr).toMatchObject({ code: 0 });

    // Stage `indexer` (WORKDIR /app): the indexer bundle and the build output, nothing else.
    const indexer = stage('indexer');
    cpSync(join(DIST, 'kindgi-index.mjs'), join(indexer, 'kindgi-index.mjs'));
    cpSync(join(src, 'build'), join(indexer, 'pack'), { recursive: true });
    const bundles = filesUnder(join(indexer, 'pack'));
    expect(bundles).toContain('kindgi.config.mjs');
    expect(bundles).toContain('bundle-map.json');
    expect(bundles.every((file) => file.endsWith('.mjs') || file === 'bundle-map.json')).toBe(true);
    const indexArgs = ['--pack-dir', 'pack', '--bundle-map', 'pack/bundle-map.json', '--module-root', 'pack'];
    const indexed = await runCommand(
      NODE,
      ['kindgi-index.mjs', ...indexArgs, '--output', 'index.json', '--artifact-version', ARTIFACT_VERSION],
      indexer,
      { SOURCE_DATE_EPOCH },
    );
    expect(indexed, indexed.stderr).toMatchObject({ code: 0, stderr: '' });

    // The developer's own `kindgi-index` over the sources, with the same pins.
    const local = await runCommand(
      NODE,
      [
        join(DIST, 'kindgi-index/main.js'),
        '--pack-dir',
        '.',
        '--output',
        '../local-index.json',
        '--artifact-version',
        ARTIFACT_VERSION,
      ],
      src,
      { SOURCE_DATE_EPOCH },
    );
    expect(local, local.stderr).toMatchObject({ code: 0 });
    const imageIndex = readFileSync(join(indexer, 'index.json'), 'utf8');
    expect(imageIndex).toBe(readFileSync(join(root, 'local-index.json'), 'utf8'));
    expect(JSON.parse(imageIndex)).toMatchObject({
      publishedAt: '2025-09-20T14:32:07.000Z',
      artifactVersion: ARTIFACT_VERSION,
    });

    // Stage `runtime` (WORKDIR /app): the service bundle, the build output and the index.
    const runtime = stage('runtime');
    cpSync(join(DIST, 'kindgi-pack-service.mjs'), join(runtime, 'kindgi-pack-service.mjs'));
    cpSync(join(src, 'build'), join(runtime, 'pack'), { recursive: true });
    cpSync(join(indexer, 'index.json'), join(runtime, 'index.json'));
    expect(filesUnder(runtime)).toEqual(
      ['index.json', 'kindgi-pack-service.mjs', ...bundles.map((file) => join('pack', file))].sort(),
    );
    // The CMD, with PORT=0 and a loopback host instead of the image's 8080 on every interface.
    const cmd = [
      'kindgi-pack-service.mjs',
      '--index',
      'index.json',
      '--bundle-map',
      'pack/bundle-map.json',
      '--module-root',
      'pack',
    ];
    service = await startService(NODE, [...cmd, '--host', '127.0.0.1'], runtime, {
      PORT: '0',
      KINDGI_PACK_SERVICE_TOKEN: TOKEN,
      ACME_API_BASE: 'https://cases.acme.test/',
    });
    const client = createPackServiceClient({ url: `http://127.0.0.1:${service.port}`, token: TOKEN });
    try {
      const ctx = { tenantId: 't-1', runId: 'r-1' };
      const citation = await client.invoke({
        tool: { id: 'acme.format-citation' },
        input: { source: 'Brown v. Board', page: 483 },
        ctx,
      });
      expect(citation).toEqual({
        kind: 'ok',
        value: { v: 2, kind: 'result', output: { citation: '[Brown v. Board, p. 483]' } },
      });
      // A declared variable reaches the pack's code in the runtime stage.
      const link = await client.invoke({ tool: { id: 'acme.case-link' }, input: { caseId: 'CASE-1001' }, ctx });
      expect(link).toEqual({
        kind: 'ok',
        value: { v: 2, kind: 'result', output: { url: 'https://cases.acme.test/cases/CASE-1001' } },
      });
    } finally {
      await client.close();
    }
  });

  it('the indexer bundle refuses a TypeScript config, naming it, and writes nothing', async () => {
    const indexer = stage('indexer-ts-config');
    cpSync(join(DIST, 'kindgi-index.mjs'), join(indexer, 'kindgi-index.mjs'));
    mkdirSync(join(indexer, 'pack/tools'), { recursive: true });
    cpSync(join(EXAMPLE_PACK, 'kindgi.config.ts'), join(indexer, 'pack/kindgi.config.ts'));
    const ran = await runCommand(
      NODE,
      ['kindgi-index.mjs', '--pack-dir', 'pack', '--output', 'index.json'],
      indexer,
      {},
    );
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(
      /^kindgi-index: config-parse-failed: kindgi\.config\.ts: could not be read: .*is TypeScript/,
    );
    expect(existsSync(join(indexer, 'index.json'))).toBe(false);
  });
});
