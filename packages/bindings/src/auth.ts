/** Who a bearer token belongs to. The tenant always comes from the token, never from the request. */
export interface Principal {
  tenantId: string;
  userId?: string;
  scopes?: string[];
}

/** Bearer token → principal, or `null` when the token is unknown, expired or revoked. */
export type TokenResolver = (token: string) => Promise<Principal | null>;
