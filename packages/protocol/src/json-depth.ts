/**
 * The deepest nesting of arrays and objects any Kindgi JSON surface accepts (REST, S3 metadata
 * documents, the pack protocol). `JSON.parse` copes with far deeper text, but `JSON.stringify`, Ajv
 * and structured clone recurse, so a value past this depth would overflow the stack somewhere later.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * False when JSON `text` is too short to nest past `max`: that takes `max + 1` opening and as many closing
 * brackets, so a shorter text needs no `exceedsJsonDepth` walk after parsing.
 */
export function jsonTextMayExceedDepth(text: string, max: number = MAX_JSON_DEPTH): boolean {
  return text.length >= 2 * (max + 1);
}

/**
 * True when `value` nests arrays/objects more than `max` levels deep (`[]` and `{}` are depth 1, a
 * scalar depth 0). The walk is iterative, so it cannot overflow the stack itself, and it stops at the
 * first container past `max`. Meant for decoded JSON (a tree): a value reached twice is walked twice.
 */
export function exceedsJsonDepth(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (max < 1) return true;
  // Two parallel stacks instead of [value, depth] pairs: no allocation per visited node.
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop() as object;
    const depth = depths.pop() as number;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (typeof child !== 'object' || child === null) continue;
      if (depth + 1 > max) return true;
      values.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
}
