import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MAX_JSON_DEPTH } from '@kindgi/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_ERROR_STATUS } from '../src/index.js';
import { locateScalarBundle, ScalarBundleMissingError } from '../src/openapi/scalar-bundle.js';
import { envelope, makeApp } from './helpers.js';

const conventions = readFileSync(new URL('../../../docs/API-ROUTE-CONVENTIONS.md', import.meta.url), 'utf8');
const snapshot = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')) as unknown;

it('the conventions document lists exactly the code → status table of the code', () => {
  const rows = [...conventions.matchAll(/^\|\s*`([a-z0-9-]+)`\s*\|\s*(\d{3})\s*\|$/gm)].map(([, code, status]) => [
    code,
    Number(status),
  ]);
  expect(Object.fromEntries(rows)).toEqual(REST_ERROR_STATUS);
  expect(rows).toHaveLength(Object.keys(REST_ERROR_STATUS).length);
});

it('the conventions document states the pagination and idempotency constants the code uses', () => {
  expect(conventions).toContain('`?limit` 1..100, default 25');
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the document quotes the key template literally.
  expect(conventions).toContain('`${tenantId}|${METHOD}:${path}|${key}`');
  expect(conventions).toContain('`Retry-After: 5`');
  expect(conventions).toContain('`X-Idempotent-Replay: true`');
  expect(conventions).toContain(`JSON nested\n  deeper than ${MAX_JSON_DEPTH} arrays/objects (\`MAX_JSON_DEPTH\``);
});

describe('Scalar docs page, served without a CDN', () => {
  const bundle = locateScalarBundle();

  it('references only the locally served script and no external host', async () => {
    const { app } = makeApp({ openapi: { docs: true } });
    const res = await app.request('/docs');
    expect(res.status).toBe(200);
    const html = await res.text();
    const sources = [...html.matchAll(/\b(?:src|href)="([^"]*)"|\bimport\b[^'"]*['"]([^'"]+)['"]|url\(([^)]*)\)/g)].map(
      (m) => m[1] ?? m[2] ?? m[3],
    );
    // Relative to the page, so the page works under a host's mount prefix too.
    expect(sources).toEqual([`docs/scalar.js?v=${bundle.version}`]);
    expect(html).not.toMatch(/https?:|\/\/[a-z0-9]/i);
    expect(html).toContain('"url": "v1/openapi.json"');
    expect(html).toContain('"withDefaultFonts": false');
    // The scalar.com-backed features stay off: they cannot work air-gapped and would send the document away.
    expect(html).toMatch(/"agent": \{\s*"disabled": true\s*\}/);
    expect(html).toMatch(/"mcp": \{\s*"disabled": true\s*\}/);
    expect(html).toContain('"showDeveloperTools": "never"');
    expect(html).toContain('"telemetry": false');
  });

  it('serves the script publicly, streamed whole, as JavaScript with an ETag and a long-lived cache', async () => {
    const { app } = makeApp({ openapi: { docs: true } });
    const res = await app.request(`/docs/scalar.js?v=${bundle.version}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('etag')).toBe(`"scalar-${bundle.version}-${bundle.size}"`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBeGreaterThan(0);
    expect(Number(res.headers.get('content-length'))).toBe(body.length);
    expect(body.equals(readFileSync(bundle.file))).toBe(true);
    expect(body.toString('utf8')).toContain('createApiReference');
  });

  it('answers 304 to a matching If-None-Match (strong, weak, listed or *) and 200 otherwise', async () => {
    const { app } = makeApp({ openapi: { docs: true } });
    for (const tag of [bundle.etag, `W/${bundle.etag}`, `"other", ${bundle.etag}`, '*']) {
      const res = await app.request('/docs/scalar.js', { headers: { 'if-none-match': tag } });
      expect(res.status, tag).toBe(304);
      expect(res.headers.get('etag')).toBe(bundle.etag);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(await res.text()).toBe('');
    }
    const stale = await app.request('/docs/scalar.js', { headers: { 'if-none-match': '"scalar-0.0.0-1"' } });
    expect(stale.status).toBe(200);
    expect((await stale.arrayBuffer()).byteLength).toBe(bundle.size);
  });

  it('answers HEAD with the headers only', async () => {
    const { app } = makeApp({ openapi: { docs: true } });
    const res = await app.request('/docs/scalar.js', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(bundle.size));
    expect(res.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(await res.text()).toBe('');
  });

  it('leaves the OpenAPI document as it was: the script route is not described', async () => {
    const { app } = makeApp({ openapi: { docs: true } });
    const doc = (await (await app.request('/v1/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(doc).toEqual(snapshot);
    expect(Object.keys(doc.paths).filter((p) => /docs|scalar/.test(p))).toEqual([]);
  });

  it('follows a custom path (also under /v1, still without a bearer) and is absent when docs are off', async () => {
    const custom = makeApp({ openapi: { docs: { path: '/reference/', title: 'Acme' } } }).app;
    expect(await (await custom.request('/reference/')).text()).toContain('src="scalar.js?v=');
    expect((await custom.request('/reference/scalar.js')).status).toBe(200);

    const underV1 = makeApp({ openapi: { docs: { path: '/v1/docs' } } }).app;
    expect(await (await underV1.request('/v1/docs')).text()).toContain('src="docs/scalar.js?v=');
    const script = await underV1.request('/v1/docs/scalar.js', { method: 'HEAD' });
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('application/javascript; charset=utf-8');

    const off = makeApp().app;
    for (const path of ['/docs', '/docs/scalar.js']) {
      const res = await off.request(path);
      expect(res.status, path).toBe(404);
      expect((await envelope(res)).code).toBe('route-not-found');
    }
  });
});

describe('locating the Scalar bundle', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'kindgi-scalar-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('fails with a typed error naming the package when it cannot be resolved', () => {
    // pnpm puts its hoisted store on NODE_PATH, so "not installed" is staged as an installed copy whose
    // entry point cannot be resolved (resolution stops at the first package directory it finds).
    const pkg = join(root, 'unresolvable', 'node_modules', '@scalar', 'api-reference');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: '@scalar/api-reference', exports: {} }));
    const from = pathToFileURL(join(root, 'unresolvable', 'app.js'));
    expect(() => locateScalarBundle(from)).toThrow(ScalarBundleMissingError);
    expect(() => locateScalarBundle(from)).toThrow(/needs @scalar\/api-reference's browser bundle.*cannot be resolved/);
  });

  it('fails when the package is installed without its browser build', () => {
    const pkg = join(root, 'partial', 'node_modules', '@scalar', 'api-reference');
    mkdirSync(join(pkg, 'dist'), { recursive: true });
    writeFileSync(
      join(pkg, 'package.json'),
      JSON.stringify({ name: '@scalar/api-reference', version: '9.9.9', main: 'dist/index.js' }),
    );
    writeFileSync(join(pkg, 'dist', 'index.js'), '');
    let thrown: unknown;
    try {
      locateScalarBundle(pathToFileURL(join(root, 'partial', 'app.js')));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ScalarBundleMissingError);
    expect((thrown as ScalarBundleMissingError).code).toBe('scalar-bundle-missing');
    expect((thrown as Error).message).toContain(join('dist', 'browser', 'standalone.js'));
    expect((thrown as Error).message).toContain('is missing or empty');
  });

  it('finds the installed build: a non-empty file and the package version', () => {
    const found = locateScalarBundle();
    expect(found.file.endsWith(join('@scalar', 'api-reference', 'dist', 'browser', 'standalone.js'))).toBe(true);
    expect(found.size).toBe(statSync(found.file).size);
    expect(found.size).toBeGreaterThan(0);
    expect(found.version).toMatch(/^\d+\.\d+\.\d+/);
  });
});
