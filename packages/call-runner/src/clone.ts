// Deeper than any real input; past it (or at a cycle) the copy falls back to structuredClone.
const MAX_FAST_DEPTH = 64;

class NotPlain extends Error {}

/**
 * A deep copy of `value` with `structuredClone` semantics. JSON-shaped data (what arrives on the wire)
 * is copied by a direct walk, several times faster than `structuredClone` for small objects; anything
 * else (Dates, Maps, cycles, very deep values) goes through `structuredClone` itself. Throws what
 * `structuredClone` throws (a function or a symbol in the value).
 */
export function cloneInput<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  try {
    return copyPlain(value, 0) as T;
  } catch (error) {
    if (error instanceof NotPlain) return structuredClone(value);
    throw error;
  }
}

function copyPlain(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'function' || typeof value === 'symbol') throw new NotPlain();
    return value;
  }
  if (depth > MAX_FAST_DEPTH) throw new NotPlain();
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) throw new NotPlain();
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyPlain(value[i], depth + 1);
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw new NotPlain();
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const copy = copyPlain((value as Record<string, unknown>)[key], depth + 1);
    // A JSON `__proto__` key is data: plain assignment would make it the copy's prototype, hiding it from
    // validation while the handler still read its fields through inheritance.
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    else out[key] = copy;
  }
  return out;
}
