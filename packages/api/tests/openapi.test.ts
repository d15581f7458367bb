import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../src/index.js';
import { makeApp } from './helpers.js';

const snapshot = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')) as Record<
  string,
  unknown
>;

describe('OpenAPI document', () => {
  it('matches the committed openapi.json (run `pnpm --filter @kindgi/api gen:openapi` after changing routes)', () => {
    expect(createOpenApiDocument()).toEqual(snapshot);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(createOpenApiDocument());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is served publicly at /v1/openapi.json and equals the snapshot when every surface is mounted', async () => {
    const { app } = makeApp();
    const res = await app.request('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(snapshot);
  });

  it('describes only mounted surfaces, never /s3, with the configured info and servers', async () => {
    const { app } = makeApp({
      blobStorage: undefined,
      openapi: { info: { title: 'Acme API' }, servers: [{ url: 'https://api.example.test' }] },
    });
    const doc = (await (await app.request('/v1/openapi.json')).json()) as {
      info: { title: string };
      servers: unknown[];
      paths: Record<string, unknown>;
    };
    expect(doc.info.title).toBe('Acme API');
    expect(doc.servers).toEqual([{ url: 'https://api.example.test' }]);
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/v1/artifacts'))).toBe(false);
    expect(Object.keys(snapshot.paths as object).some((p) => p.startsWith('/s3'))).toBe(false);
  });

  it('names every error response with the envelope and every /v1 route with bearer auth', () => {
    const doc = createOpenApiDocument() as {
      paths: Record<
        string,
        Record<
          string,
          {
            security?: unknown;
            responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
          }
        >
      >;
    };
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const operation of Object.values(operations)) {
        if (path.startsWith('/v1/')) expect(operation.security).toEqual([{ bearerAuth: [] }]);
        for (const [status, response] of Object.entries(operation.responses)) {
          const json = response.content?.['application/json']?.schema?.$ref;
          if (Number(status) >= 400 && response.content) expect(json).toBe('#/components/schemas/ErrorEnvelope');
        }
      }
    }
  });
});

describe('docs page', () => {
  it('serves Scalar at /docs, publicly, reading /v1/openapi.json', async () => {
    const { app } = makeApp({ openapi: { docs: true } });
    const res = await app.request('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain('"url": "v1/openapi.json"');
    expect(html.toLowerCase()).toContain('scalar');
  });

  it('honours a custom path and title, and is absent by default', async () => {
    const { app } = makeApp({ openapi: { docs: { path: '/reference', title: 'Acme Legal API' } } });
    const res = await app.request('/reference');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Acme Legal API');
    expect((await makeApp().app.request('/docs')).status).toBe(404);
  });

  it('stays public when mounted under /v1', async () => {
    const { app } = makeApp({ openapi: { docs: { path: '/v1/docs' } } });
    expect((await app.request('/v1/docs')).status).toBe(200);
    expect((await app.request('/v1/tools')).status).toBe(401);
  });
});
