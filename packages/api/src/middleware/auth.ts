import type { TokenResolver } from '@kindgi/bindings';
import { parseBearer } from '@kindgi/protocol';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors/api-error.js';
import { pathInApp } from './mount-prefix.js';

const CHALLENGE = { 'www-authenticate': 'Bearer' };

/**
 * Resolves `Authorization: Bearer <token>` to a principal; paths in `publicPaths` (as this app spells them,
 * whatever prefix a host mounted it under) pass without one.
 */
export function authMiddleware(
  resolveToken: TokenResolver,
  publicPaths: ReadonlySet<string>,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (publicPaths.has(pathInApp(c))) return next();
    const bearer = parseBearer(c.req.header('authorization'));
    if (bearer.kind === 'missing') {
      throw new ApiError('auth-missing', 'Send Authorization: Bearer <token>.', undefined, CHALLENGE);
    }
    if (bearer.kind === 'malformed') {
      throw new ApiError('auth-missing', 'The Authorization header must use the Bearer scheme.', undefined, CHALLENGE);
    }
    let principal: Awaited<ReturnType<TokenResolver>>;
    try {
      principal = await resolveToken(bearer.token);
    } catch {
      throw new ApiError('authz-backend-unavailable', 'The token could not be checked; retry later.');
    }
    if (principal === null || typeof principal?.tenantId !== 'string' || principal.tenantId === '') {
      throw new ApiError('auth-invalid', 'The bearer token is unknown, expired or revoked.', undefined, CHALLENGE);
    }
    c.set('principal', principal);
    return next();
  };
}
