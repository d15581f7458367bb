import type { Principal, TokenResolver } from '@kindgi/bindings';
import { parseBearer } from '@kindgi/protocol';
import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';

/** The RFC 9728 well-known prefix; the resource's path follows it. */
export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** A refused request: status, the error envelope `/v1` uses, and the challenge. */
export interface AuthRefusal {
  status: 401 | 503;
  code: 'auth-missing' | 'auth-invalid' | 'authz-backend-unavailable';
  message: string;
  challenge?: string;
}

/**
 * The metadata URL for the MCP endpoint at `resourceUrl`: the well-known path put before the resource's
 * path, as RFC 9728 forms it, within the app's mount prefix (`prefix`), which is as far as a mounted app's
 * routes reach.
 */
export function metadataUrl(origin: string, prefix: string, basePath: string): string {
  return `${origin}${prefix}${PROTECTED_RESOURCE_WELL_KNOWN}${basePath}`;
}

/** The protected-resource metadata document: bearer tokens in the header, no authorization server. */
export function resourceMetadata(resource: string): OAuthProtectedResourceMetadata {
  return { resource, bearer_methods_supported: ['header'], resource_name: 'Kindgi MCP' };
}

/**
 * The same bearer check as `/v1`: the token resolves to a principal with a tenant, or the request is refused
 * (the challenge names `metadata()`, worked out only then).
 */
export async function authenticate(
  header: string | undefined,
  resolveToken: TokenResolver,
  metadata: () => string,
): Promise<{ kind: 'ok'; principal: Principal } | { kind: 'refused'; refusal: AuthRefusal }> {
  const bearer = parseBearer(header);
  const challenge = (error?: string) =>
    error === undefined
      ? `Bearer resource_metadata="${metadata()}"`
      : `Bearer error="${error}", resource_metadata="${metadata()}"`;
  if (bearer.kind !== 'token') {
    const message =
      bearer.kind === 'missing'
        ? 'Send Authorization: Bearer <token>.'
        : 'The Authorization header must use the Bearer scheme.';
    return { kind: 'refused', refusal: { status: 401, code: 'auth-missing', message, challenge: challenge() } };
  }
  let principal: Principal | null;
  try {
    principal = await resolveToken(bearer.token);
  } catch {
    const message = 'The token could not be checked; retry later.';
    return { kind: 'refused', refusal: { status: 503, code: 'authz-backend-unavailable', message } };
  }
  if (principal === null || typeof principal?.tenantId !== 'string' || principal.tenantId === '') {
    const message = 'The bearer token is unknown, expired or revoked.';
    return {
      kind: 'refused',
      refusal: { status: 401, code: 'auth-invalid', message, challenge: challenge('invalid_token') },
    };
  }
  return { kind: 'ok', principal };
}
