/** The non-enumerable property that marks an object made by `defineX`, holding its kind. */
export const PRIMITIVE_MARKER: unique symbol = Symbol.for('kindgi.primitive');

/** The kinds of pack primitive a definition can be. */
export type PrimitiveKind = 'tool' | 'guardrail' | 'agent' | 'flow';

/** Freezes a definition and marks it with its kind (non-enumerable, so it never reaches an index). */
export function markPrimitive<T extends object>(definition: T, kind: PrimitiveKind): T {
  Object.defineProperty(definition, PRIMITIVE_MARKER, { value: kind, enumerable: false });
  return Object.freeze(definition);
}

/** The kind a `defineX` function stamped on `value`, or `undefined` for anything else. */
export function primitiveKindOf(value: unknown): PrimitiveKind | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const kind = (value as { [PRIMITIVE_MARKER]?: unknown })[PRIMITIVE_MARKER];
  return kind === 'tool' || kind === 'guardrail' || kind === 'agent' || kind === 'flow' ? kind : undefined;
}
