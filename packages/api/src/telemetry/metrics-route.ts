import { createHash, timingSafeEqual } from 'node:crypto';
import type { TelemetryBinding } from '@kindgi/bindings';
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
const digest = (value: string) => createHash('sha256').update(value).digest();

/** Mounts `GET <path>`: the binding's scrape, behind the bearer token when one is configured. */
export function mountMetricsRoute(
  app: Hono<AppEnv>,
  scrape: NonNullable<TelemetryBinding['scrape']>,
  options: MetricsRouteOptions,
): void {
  const expected = options.token === undefined ? undefined : digest(options.token);
  app.get(metricsPath(options), async (c) => {
    if (expected) {
      const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(c.req.header('authorization') ?? '');
      // Digests compare in constant time whatever the sent token's length.
      if (!match?.[1] || !timingSafeEqual(digest(match[1]), expected)) {
        const code = match ? 'auth-invalid' : 'auth-missing';
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
