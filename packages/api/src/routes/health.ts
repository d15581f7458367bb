import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors/api-error.js';
import { errorResponses } from '../openapi/schemas.js';

/** One dependency's state as `/readyz` reports it. `message` is for operators: never a secret or a path. */
export interface ReadinessCheckResult {
  ok: boolean;
  message?: string;
}

/**
 * What `createApp({readiness})` calls on every `GET /readyz`: each named dependency (storage, each pack, …)
 * and whether it can serve now. The app is ready when every check is `ok`.
 */
export type ReadinessProbe = () => Promise<Record<string, ReadinessCheckResult>>;

/** How long `/readyz` waits for the probe before answering not-ready (an orchestrator's own timeout is the other bound). */
const PROBE_TIMEOUT_MS = 5_000;

const HealthSchema = z.object({ status: z.literal('ok') }).openapi('Health');

const ReadinessSchema = z
  .object({
    status: z.literal('ready'),
    checks: z.record(z.string(), z.object({ ok: z.boolean(), message: z.string().optional() })),
  })
  .openapi('Readiness');

function livenessRoute(path: '/health' | '/healthz', summary: string) {
  return createRoute({
    method: 'get',
    path,
    tags: ['meta'],
    summary,
    responses: {
      200: { description: 'The process answers', content: { 'application/json': { schema: HealthSchema } } },
    },
  });
}

export const healthRoute = livenessRoute('/health', 'Liveness (public; the same as /healthz)');
export const healthzRoute = livenessRoute('/healthz', 'Liveness (public): the process answers');

export const readyzRoute = createRoute({
  method: 'get',
  path: '/readyz',
  tags: ['meta'],
  summary: 'Readiness (public): storage reachable and every configured pack serving',
  description: 'Not ready is 503 `not-ready`, with each check in `details.checks`.',
  responses: {
    200: { description: 'Ready to serve', content: { 'application/json': { schema: ReadinessSchema } } },
    ...errorResponses(503),
  },
});

/** Every health route, for the OpenAPI document. */
export const healthRoutes = [healthRoute, healthzRoute, readyzRoute];

/** The paths the health routes take (outside /v1, no token). */
export const HEALTH_PATHS = healthRoutes.map((route) => route.path);

async function runProbe(probe: ReadinessProbe | undefined): Promise<Record<string, ReadinessCheckResult>> {
  if (probe === undefined) return {};
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Record<string, ReadinessCheckResult>>((resolve) => {
    timer = setTimeout(
      () => resolve({ probe: { ok: false, message: 'the readiness checks did not answer in time' } }),
      PROBE_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([
      probe().catch(() => ({ probe: { ok: false, message: 'the readiness checks failed' } })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Mounts `GET /health` and `GET /healthz` (liveness) and `GET /readyz` (readiness through `probe`). */
export function registerHealthRoutes(app: OpenAPIHono<AppEnv>, probe: ReadinessProbe | undefined): void {
  app.openapi(healthRoute, (c) => c.json({ status: 'ok' as const }, 200));
  app.openapi(healthzRoute, (c) => c.json({ status: 'ok' as const }, 200));
  app.openapi(readyzRoute, async (c) => {
    const checks = await runProbe(probe);
    const ready = Object.values(checks).every((check) => check.ok);
    if (!ready) throw new ApiError('not-ready', 'A readiness check failed; see details.checks.', { checks });
    return c.json({ status: 'ready' as const, checks }, 200);
  });
}
