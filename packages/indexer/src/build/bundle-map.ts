import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type BundleMap, checkBundleMap, describeThrown, err, type Result } from '@kindgi/protocol';

export { type BundleMap, checkBundleMap };

/** The largest bundle map file read: ample for `MAX_BUNDLE_MAP_ENTRIES` entries. */
const MAX_BUNDLE_MAP_BYTES = 4 * 1024 * 1024;

/** Reads a bundle map from a JSON file (relative to `baseDir`) or takes it as given. */
export async function loadBundleMap(spec: string | BundleMap, baseDir: string): Promise<Result<BundleMap, string>> {
  if (typeof spec !== 'string') return checkBundleMap(spec, 'bundleMap');
  const path = resolve(baseDir, spec);
  let raw: unknown;
  try {
    const { size } = await stat(path);
    if (size > MAX_BUNDLE_MAP_BYTES) {
      return err(`bundle map ${path} is ${size} bytes, more than the ${MAX_BUNDLE_MAP_BYTES} read`);
    }
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch (cause) {
    return err(`bundle map ${path} could not be read: ${describeThrown(cause)}`);
  }
  return checkBundleMap(raw, `bundle map ${path}`);
}
