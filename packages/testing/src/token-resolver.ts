import type { Principal, TokenResolver } from '@kindgi/bindings';

/** A `TokenResolver` over a fixed token → principal map; any other token resolves to null. */
export function createStaticTokenResolver(tokens: Record<string, Principal>): TokenResolver {
  const map = new Map(Object.entries(tokens));
  return async (token) => {
    const principal = map.get(token);
    return principal === undefined ? null : { ...principal };
  };
}
