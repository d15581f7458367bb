import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env.js';
import { mountPrefix } from '../middleware/mount-prefix.js';
import { agentRoutes } from '../routes/agents/definitions.js';
import { approvalRoutes } from '../routes/approvals/definitions.js';
import { artifactRoutes } from '../routes/artifacts/definitions.js';
import { guardrailRoutes } from '../routes/guardrails/definitions.js';
import { healthRoutes } from '../routes/health.js';
import { runRoutes } from '../routes/runs/definitions.js';
import { secretRoutes } from '../routes/secrets/definitions.js';
import { toolRoutes } from '../routes/tools/definitions.js';

/** The document's `info` and `servers`, as `createApp({openapi})` takes them. */
export interface OpenApiMeta {
  info?: { title?: string; version?: string; description?: string };
  servers?: { url: string; description?: string }[];
}

/** The path of the JSON document (public). */
export const OPENAPI_PATH = '/v1/openapi.json';

const DEFAULT_INFO = {
  title: 'Kindgi API',
  version: '1',
  description:
    'The Kindgi REST API: artifacts, tools, guardrails and runs. Conventions: docs/API-ROUTE-CONVENTIONS.md. ' +
    'The /s3 surface speaks the S3 wire protocol and is not described here.',
};

/** Registers the bearer scheme on a registry (every authenticated route names it). */
export function registerSecurity(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer' });
}

/** Renders an app's registered routes as the OpenAPI 3.1 document. */
export function renderDocument(app: OpenAPIHono<AppEnv>, meta: OpenApiMeta = {}): Record<string, unknown> {
  const document = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: { ...DEFAULT_INFO, ...meta.info },
    ...(meta.servers ? { servers: meta.servers } : {}),
  });
  return document as unknown as Record<string, unknown>;
}

/**
 * Serves the app's document at `OPENAPI_PATH`, rendered once from the routes registered so far. Under a host's
 * prefix, and with no `servers` configured, it names the prefix as its server, so the docs page's requests
 * (and generated clients) reach the mounted routes.
 */
export function mountDocument(app: OpenAPIHono<AppEnv>, meta: OpenApiMeta): void {
  const document = renderDocument(app, meta);
  app.get(OPENAPI_PATH, (c) => {
    const prefix = mountPrefix(c);
    if (prefix === '' || meta.servers !== undefined) return c.json(document);
    return c.json({ ...document, servers: [{ url: prefix }] });
  });
}

/**
 * The complete /v1 document (every surface mounted), as `gen:openapi` snapshots it to openapi.json.
 * Built from the same route definitions the app validates with.
 */
export function createOpenApiDocument(meta: OpenApiMeta = {}): Record<string, unknown> {
  const app = new OpenAPIHono<AppEnv>();
  registerSecurity(app);
  for (const route of [
    ...healthRoutes,
    ...artifactRoutes,
    ...toolRoutes,
    ...guardrailRoutes,
    ...runRoutes,
    ...agentRoutes,
    ...approvalRoutes,
    ...secretRoutes,
  ]) {
    app.openAPIRegistry.registerPath(route);
  }
  return renderDocument(app, meta);
}
