import { err, ok, type Result } from '@kindgi/protocol';

/** True for `{…}` literals and `Object.create(null)` objects: what JSON objects are copied from. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Copies a definition field into plain JSON, or says where it holds something JSON cannot carry (a
 * function, a class instance, a bigint…): the index must say exactly what the pack declared.
 */
export function toJsonValue(value: unknown, where: string): Result<unknown, string> {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return ok(value);
  if (typeof value === 'number') {
    return Number.isFinite(value) ? ok(value) : err(`${where} is ${value}, which JSON cannot carry`);
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const [index, item] of value.entries()) {
      const copied = toJsonValue(item, `${where}[${index}]`);
      if (copied.kind === 'err') return copied;
      out.push(copied.value);
    }
    return ok(out);
  }
  if (typeof value === 'object' && isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      if (child === undefined) continue;
      const copied = toJsonValue(child, `${where}.${key}`);
      if (copied.kind === 'err') return copied;
      out[key] = copied.value;
    }
    return ok(out);
  }
  const what = typeof value === 'object' ? `a ${value.constructor?.name ?? 'non-plain'} object` : `a ${typeof value}`;
  return err(`${where} is ${what}, which JSON cannot carry`);
}
