import type { TelemetryBinding } from '@kindgi/bindings';
import { parseBearer, secretMatcher } from '@kindgi/protocol';
import type { Hono } from 'hono';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors/api-error.js';
import { errorResponse } from '../errors/respond.js';

/** Where and how the metrics exposition is served. */
export interface MetricsRouteOptions {
  /** Default `/metrics`. */
  path?: string;
  /** When set, a scrape must send `Authorization: Bearer <token>`. */
  token?: string;
}

/** The metrics path `createApp` serves for these options. */
export function metricsPath(options: MetricsRouteOptions): string {
  return options.path ?? '/metrics';
}

const CHALLENGE = { 'www-authenticate': 'Bearer' };

/** Mounts `GET <path>`: the binding's scrape, behind the bearer token when one is configured. */
export function mountMetricsRoute(
  app: Hono<AppEnv>,
  scrape: NonNullable<TelemetryBinding['scrape']>,
  options: MetricsRouteOptions,
): void {
  const matches = options.token === undefined ? undefined : secretMatcher(options.token);
  app.get(metricsPath(options), async (c) => {
    if (matches) {
      const bearer = parseBearer(c.req.header('authorization'));
      if (bearer.kind !== 'token' || !matches(bearer.token)) {
        const code = bearer.kind === 'token' ? 'auth-invalid' : 'auth-missing';
        return errorResponse(
          c,
          new ApiError(code, 'Scraping these metrics needs the metrics bearer token.', undefined, CHALLENGE),
        );
      }
    }
    const { contentType, body } = await scrape();
    return c.body(body, 200, { 'content-type': contentType, 'cache-control': 'no-store' });
  });
}
