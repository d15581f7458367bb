import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../env.js';

export const healthRoute = createRoute({
  method: 'get',
  path: '/health',
  tags: ['meta'],
  summary: 'Liveness (public)',
  responses: {
    200: {
      description: 'The process answers',
      content: { 'application/json': { schema: z.object({ status: z.literal('ok') }).openapi('Health') } },
    },
  },
});

/** Mounts `GET /health`. */
export function registerHealthRoute(app: OpenAPIHono<AppEnv>): void {
  app.openapi(healthRoute, (c) => c.json({ status: 'ok' as const }, 200));
}
