function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort(compareCodeUnits)) {
    const child = (value as Record<string, unknown>)[key];
    if (child !== undefined) out[key] = sortKeys(child);
  }
  return out;
}

/** Orders strings by UTF-16 code unit, as every Kindgi index writer does (not by locale). */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The canonical text of a JSON document: keys sorted by code unit at every level, two-space indent,
 * a final newline. Index writers in every language produce exactly these bytes.
 */
export function canonicalJson(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}
