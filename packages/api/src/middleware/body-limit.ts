import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors/api-error.js';

/** Refuses JSON (non-multipart) bodies over `maxBytes` with 413 `body-too-large`; uploads have their own limit. */
export function jsonBodyLimitMiddleware(maxBytes: number): MiddlewareHandler<AppEnv> {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ApiError('body-too-large', `The request body is over ${maxBytes} bytes.`, { maxBytes });
    },
  });
  return async (c, next) => {
    const type = c.req.header('content-type') ?? '';
    if (/^multipart\/form-data/i.test(type)) return next();
    return limit(c, next);
  };
}
