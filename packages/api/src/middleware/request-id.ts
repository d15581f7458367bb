import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';

// A client id is echoed only when it is short, visible ASCII: it lands in logs and response headers.
const CLIENT_REQUEST_ID = /^[\x21-\x7e]{1,200}$/;

/** Honours a sane `X-Request-Id`, otherwise generates `req-<uuid>`; echoes it on every response. */
export function requestIdMiddleware(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const given = c.req.header('x-request-id');
    const requestId = given !== undefined && CLIENT_REQUEST_ID.test(given) ? given : `req-${randomUUID()}`;
    c.set('requestId', requestId);
    await next();
    c.res.headers.set('x-request-id', requestId);
  };
}
