import { err, ok, type Result } from './result.js';

/** A build's map of source paths (as an index records them) to bundle paths (relative to the module root). */
export type BundleMap = Record<string, string>;

/** The most entries a bundle map may hold: far past any pack, short of a map that is not one. */
export const MAX_BUNDLE_MAP_ENTRIES = 10_000;

function normalise(path: string): string {
  return path.replaceAll('\\', '/').replace(/^(\.\/)+/, '');
}

function escapes(path: string): boolean {
  return path === '' || path.startsWith('/') || /^[A-Za-z]:/.test(path) || path.split('/').includes('..');
}

/**
 * Checks a parsed bundle map: a JSON object of source path → bundle path, both relative and inside their
 * roots (no `..`, not absolute), each source once. Paths are normalised (`./` dropped, `\` → `/`). The one
 * reader of the indexer and the pack service, so both refuse the same maps. `source` names the map in
 * messages (its file, or `bundleMap`).
 */
export function checkBundleMap(raw: unknown, source: string): Result<BundleMap, string> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return err(`${source} must be a JSON object of source path → bundle path`);
  }
  const entries = Object.entries(raw);
  if (entries.length > MAX_BUNDLE_MAP_ENTRIES) {
    return err(
      `${source} has ${entries.length} entries, more than the ${MAX_BUNDLE_MAP_ENTRIES} a bundle map may hold`,
    );
  }
  const map: BundleMap = {};
  for (const [key, value] of entries) {
    const sourcePath = normalise(key);
    if (escapes(sourcePath)) {
      return err(`${source}: "${key}" must be a source path relative to the pack root, inside it`);
    }
    if (typeof value !== 'string' || escapes(normalise(value))) {
      return err(
        `${source}: the bundle of "${key}" must be a non-empty path relative to the module root, inside it (no "..", not absolute)`,
      );
    }
    if (map[sourcePath] !== undefined) return err(`${source}: "${sourcePath}" is listed twice`);
    map[sourcePath] = normalise(value);
  }
  return ok(map);
}
