import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ApiLogger } from '@kindgi/bindings';
import type { AppEnv } from '../env.js';
import { methodNotAllowedFinder } from '../middleware/method-not-allowed.js';
import { ApiError } from './api-error.js';
import { errorResponse, toApiError } from './respond.js';

/**
 * The app's last resorts, installed after every route: an unknown path is 404 `route-not-found` (405
 * `method-not-allowed` with `Allow` when the path is served under other methods), and anything thrown becomes
 * its envelope (logged, with the stack, only when it is not an API error).
 */
export function installErrorHandlers(app: OpenAPIHono<AppEnv>, logger: ApiLogger): void {
  const methodNotAllowed = methodNotAllowedFinder(() => app.routes);
  app.notFound((c) =>
    errorResponse(
      c,
      methodNotAllowed(c.req.method, c.req.path) ??
        new ApiError(
          'route-not-found',
          `No route for ${c.req.method} ${c.req.path}. A surface whose binding was not given to createApp is not mounted; check the deployment's bindings.`,
        ),
    ),
  );
  app.onError((thrown, c) => {
    const { error, unexpected } = toApiError(thrown);
    if (unexpected) {
      logger.error('unhandled error', {
        requestId: c.get('requestId'),
        method: c.req.method,
        path: c.req.path,
        error: thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown),
      });
    }
    return errorResponse(c, error);
  });
}
