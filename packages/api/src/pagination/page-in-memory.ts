import type { CursorSealer } from './cursor-seal.js';

/**
 * Pages a list the binding returns whole (tools, guardrails), sorted by `id`; the cursor is the last id
 * served, sealed, so a page stays stable when entries are added before it.
 */
export function pageById<T extends { id: string }>(
  items: readonly T[],
  query: { limit: number; cursor?: string | undefined },
  sealer: CursorSealer,
  scope: string,
): { data: T[]; hasMore: boolean; nextCursor?: string } {
  const sorted = [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const after = query.cursor === undefined ? undefined : sealer.open(scope, query.cursor);
  const rest = after === undefined ? sorted : sorted.filter((item) => item.id > after);
  const data = rest.slice(0, query.limit);
  const hasMore = rest.length > data.length;
  const last = data[data.length - 1];
  return hasMore && last ? { data, hasMore, nextCursor: sealer.seal(scope, last.id) } : { data, hasMore };
}
