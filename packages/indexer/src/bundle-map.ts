import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describeThrown, err, ok, type Result } from '@kindgi/protocol';

/** A build's map of source paths (as the index records them) to bundle paths (relative to the module root). */
export type BundleMap = Record<string, string>;

function normalise(path: string): string {
  return path.replaceAll('\\', '/').replace(/^(\.\/)+/, '');
}

/** Checks a bundle map: an object of relative source path → relative bundle path. Keys are normalised. */
export function checkBundleMap(raw: unknown, source: string): Result<BundleMap, string> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return err(`${source} must be a JSON object of source path → bundle path`);
  }
  const map: BundleMap = {};
  for (const [key, value] of Object.entries(raw)) {
    const sourcePath = normalise(key);
    if (
      sourcePath === '' ||
      sourcePath.startsWith('/') ||
      /^[A-Za-z]:/.test(sourcePath) ||
      sourcePath.split('/').includes('..')
    ) {
      return err(`${source}: "${key}" must be a source path relative to the pack root, inside it`);
    }
    if (typeof value !== 'string' || value === '') {
      return err(`${source}: the bundle of "${key}" must be a non-empty path relative to the module root`);
    }
    if (map[sourcePath] !== undefined) return err(`${source}: "${sourcePath}" is listed twice`);
    map[sourcePath] = value;
  }
  return ok(map);
}

/** Reads a bundle map from a JSON file (relative to `baseDir`) or takes it as given. */
export async function loadBundleMap(spec: string | BundleMap, baseDir: string): Promise<Result<BundleMap, string>> {
  if (typeof spec !== 'string') return checkBundleMap(spec, 'bundleMap');
  const path = resolve(baseDir, spec);
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch (cause) {
    return err(`bundle map ${path} could not be read: ${describeThrown(cause)}`);
  }
  return checkBundleMap(raw, `bundle map ${path}`);
}
