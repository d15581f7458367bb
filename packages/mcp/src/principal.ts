import type { Principal } from '@kindgi/bindings';
import type { AuthInfo, ServerContext } from '@modelcontextprotocol/server';
import type { ToolRequestContext } from './tool-call.js';

/**
 * The SDK's `AuthInfo` for a resolved principal. The bearer token itself stays at the edge (`token` is
 * empty): nothing past authentication, packs least of all, receives it.
 */
export function authInfoOf(principal: Principal): AuthInfo {
  return {
    token: '',
    clientId: principal.tenantId,
    scopes: principal.scopes ?? [],
    extra: { tenantId: principal.tenantId },
  };
}

/** The tenant a request was authenticated for (the handler runs only behind the bearer check). */
export function tenantOf(ctx: ServerContext): string {
  const tenantId = ctx.http?.authInfo?.extra?.tenantId;
  if (typeof tenantId !== 'string' || tenantId === '')
    throw new Error('An MCP request reached a handler unauthenticated.');
  return tenantId;
}

/** The handlers' context for a request the SDK dispatched. */
export function requestContextOf(ctx: ServerContext): ToolRequestContext {
  return {
    tenantId: tenantOf(ctx),
    meta: ctx.mcpReq._meta as Record<string, unknown> | undefined,
    signal: ctx.mcpReq.signal,
  };
}
