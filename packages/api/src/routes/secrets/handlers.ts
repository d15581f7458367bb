import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Principal, SecretStore } from '@kindgi/bindings';
import type { Result } from '@kindgi/protocol';
import type { AppEnv } from '../../env.js';
import { ApiError } from '../../errors/api-error.js';
import { apiErrorFromSecret } from '../../errors/secret-errors.js';
import type { CursorSealer } from '../../pagination/cursor-seal.js';
import {
  deleteSecretRoute,
  getSecretRoute,
  listSecretsRoute,
  putSecretRoute,
  secretAuditRoute,
} from './definitions.js';

/** What the secrets routes need. */
export interface SecretRouteDeps {
  store: SecretStore;
  /** The env a request that names none reads and writes. */
  env: string;
  cursors: CursorSealer;
}

function must<T>(result: Result<T, Parameters<typeof apiErrorFromSecret>[0]>): T {
  if (result.kind === 'err') throw apiErrorFromSecret(result.error);
  return result.value;
}

/** Who changed a secret, for its audit trail: the token's user, else its tenant (never the token). */
function actorOf(principal: Principal): string {
  return principal.userId ?? `tenant:${principal.tenantId}`;
}

function notFound(name: string, env: string): ApiError {
  return new ApiError('secret-not-found', `No secret '${name}' in env '${env}'.`, { name, env });
}

/** Mounts `/v1/secrets`: write-only values, readable metadata and audit, all scoped to the token's tenant. */
export function registerSecretRoutes(app: OpenAPIHono<AppEnv>, deps: SecretRouteDeps): void {
  const { store, cursors } = deps;
  app.openapi(putSecretRoute, async (c) => {
    const principal = c.get('principal');
    const { name } = c.req.valid('param');
    const body = c.req.valid('json');
    const env = body.env ?? deps.env;
    const put = must(
      await store.put({ tenantId: principal.tenantId, env, name, value: body.value, actor: actorOf(principal) }),
    );
    return c.json(put, put.version === 1 ? 201 : 200);
  });
  app.openapi(listSecretsRoute, async (c) => {
    const { tenantId } = c.get('principal');
    const query = c.req.valid('query');
    const scope = `${tenantId}|secrets|${query.env ?? ''}`;
    const after = query.cursor === undefined ? undefined : cursors.open(scope, query.cursor);
    const page = must(
      await store.list(tenantId, {
        limit: query.limit,
        ...(query.env !== undefined ? { env: query.env } : {}),
        ...(after !== undefined ? { after } : {}),
      }),
    );
    const body = { data: page.items, hasMore: page.after !== undefined };
    return c.json(page.after === undefined ? body : { ...body, nextCursor: cursors.seal(scope, page.after) }, 200);
  });
  app.openapi(secretAuditRoute, async (c) => {
    const { tenantId } = c.get('principal');
    const query = c.req.valid('query');
    const scope = `${tenantId}|secret-audit`;
    const after = query.cursor === undefined ? undefined : cursors.open(scope, query.cursor);
    const page = must(await store.audit(tenantId, { limit: query.limit, ...(after !== undefined ? { after } : {}) }));
    const body = { data: page.items, hasMore: page.after !== undefined };
    return c.json(page.after === undefined ? body : { ...body, nextCursor: cursors.seal(scope, page.after) }, 200);
  });
  app.openapi(getSecretRoute, async (c) => {
    const { tenantId } = c.get('principal');
    const { name } = c.req.valid('param');
    const env = c.req.valid('query').env ?? deps.env;
    const found = must(await store.get({ tenantId, env, name }));
    if (found === null) throw notFound(name, env);
    return c.json(found, 200);
  });
  app.openapi(deleteSecretRoute, async (c) => {
    const principal = c.get('principal');
    const { name } = c.req.valid('param');
    const env = c.req.valid('query').env ?? deps.env;
    const removed = must(await store.delete({ tenantId: principal.tenantId, env, name }, actorOf(principal)));
    if (removed === null) throw notFound(name, env);
    return c.json(removed, 200);
  });
}
