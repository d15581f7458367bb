import type { ToolDescriptor } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import type { ListToolsResult } from '@modelcontextprotocol/server';
import { shapeOf } from './tool-shape.js';

/** One page of `tools/list`: the tools, and the cursor of the next page when there is one. */
export type ToolPage = Pick<ListToolsResult, 'tools' | 'nextCursor'>;

const MAX_CURSOR_CHARS = 512;

// The registry returns one array per tenant view until its indexes change: sorted once per array.
const sortedLists = new WeakMap<readonly ToolDescriptor[], readonly ToolDescriptor[]>();

function sortedById(tools: readonly ToolDescriptor[]): readonly ToolDescriptor[] {
  let sorted = sortedLists.get(tools);
  if (!sorted) {
    sorted = [...tools].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    sortedLists.set(tools, sorted);
  }
  return sorted;
}

/** The cursor after `id`: opaque to clients, but only the last id listed (nothing a tenant did not see). */
function cursorAfter(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

function idOfCursor(cursor: string): string | undefined {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  return cursorAfter(id) === cursor ? id : undefined;
}

/** First index whose id sorts after `id` (binary search over the sorted list). */
function firstAfter(tools: readonly ToolDescriptor[], id: string): number {
  let low = 0;
  let high = tools.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((tools[middle] as ToolDescriptor).id <= id) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * A page of a tenant's tools in id order, `pageSize` at most, after `cursor`. A cursor keeps working when
 * tools come and go between pages: it names where the last page ended, not a position.
 */
export function pageOfTools(
  tools: readonly ToolDescriptor[],
  cursor: string | undefined,
  pageSize: number,
): Result<ToolPage, string> {
  const sorted = sortedById(tools);
  let start = 0;
  if (cursor !== undefined) {
    const after = idOfCursor(cursor);
    if (after === undefined) return err('The cursor is not one this server gave.');
    start = firstAfter(sorted, after);
  }
  const slice = sorted.slice(start, start + pageSize);
  const page: ToolPage = { tools: slice.map((tool) => shapeOf(tool).tool) };
  const last = slice.at(-1);
  if (last !== undefined && start + pageSize < sorted.length) page.nextCursor = cursorAfter(last.id);
  return ok(page);
}
