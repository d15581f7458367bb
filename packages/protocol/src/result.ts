/** The outcome of an operation that never throws: a value or a typed error. */
export type Result<T, E> = { readonly kind: 'ok'; readonly value: T } | { readonly kind: 'err'; readonly error: E };

/** Wraps a success value. */
export function ok<T>(value: T): { readonly kind: 'ok'; readonly value: T } {
  return { kind: 'ok', value };
}

/** Wraps an error value. */
export function err<E>(error: E): { readonly kind: 'err'; readonly error: E } {
  return { kind: 'err', error };
}

/** True when `value` has the shape of a `Result` envelope (used to unwrap definitions). */
export function isResult(value: unknown): value is Result<unknown, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const kind = (value as { kind?: unknown }).kind;
  return (kind === 'ok' && 'value' in value) || (kind === 'err' && 'error' in value);
}
