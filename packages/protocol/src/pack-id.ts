/**
 * A pack's id (`pack.id` in its config, the prefix of every primitive id it ships): dot-separated
 * kebab-case segments, such as `acme` or `acme-legal`. One rule for the SDK's `defineConfig` and for
 * `kindgi init`, so a pack the CLI creates is one the SDK accepts.
 */
export const PACK_ID_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*(?:\.[a-z0-9]+(?:-[a-z0-9]+)*)*$/;

/** True when `id` is a pack id (`PACK_ID_PATTERN`). */
export function isPackId(id: unknown): id is string {
  return typeof id === 'string' && PACK_ID_PATTERN.test(id);
}
