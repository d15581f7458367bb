import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The npm package whose standalone browser build the docs page loads. */
export const SCALAR_PACKAGE = '@scalar/api-reference';

/** Where the single-file (UMD, `window.Scalar`) browser build sits inside the package. */
const STANDALONE_RELATIVE = join('browser', 'standalone.js');

/** The Scalar browser bundle on disk, as the docs script route serves it. */
export interface ScalarBundle {
  /** Absolute path of the standalone script. */
  file: string;
  /** The installed package version (it pins the script's content). */
  version: string;
  /** The script's size in bytes when it was located. */
  size: number;
  /** Strong validator: npm versions are immutable, so name + version + size identify the bytes. */
  etag: string;
}

/** Thrown by `createApp` when docs are on but the Scalar browser bundle is not installed where expected. */
export class ScalarBundleMissingError extends Error {
  readonly code = 'scalar-bundle-missing';
  constructor(detail: string, options?: { cause?: unknown }) {
    super(
      `The API docs page (createApp openapi.docs) needs ${SCALAR_PACKAGE}'s browser bundle, but ${detail}. ` +
        `Install ${SCALAR_PACKAGE} alongside @kindgi/api (an optional peer dependency, needed only for the docs ` +
        'page: `--omit=optional` or a pruned node_modules leaves it out), or omit openapi.docs.',
      options,
    );
    this.name = 'ScalarBundleMissingError';
  }
}

/**
 * Finds the installed Scalar standalone script, resolving the package the way Node would from `from`
 * (default: this module). Runs once per `createApp`, so a broken install fails at startup, not on the
 * first visitor.
 */
export function locateScalarBundle(from: string | URL = import.meta.url): ScalarBundle {
  let entry: string;
  try {
    // The package exports neither package.json nor the browser build, so go through its main entry.
    entry = createRequire(from).resolve(SCALAR_PACKAGE);
  } catch (cause) {
    throw new ScalarBundleMissingError(`the package cannot be resolved from ${String(from)}`, { cause });
  }
  const distDir = dirname(entry);
  const file = join(distDir, STANDALONE_RELATIVE);
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile() || stat.size === 0) throw new Error(`${file} is not a non-empty file`);
    size = stat.size;
  } catch (cause) {
    throw new ScalarBundleMissingError(`${file} is missing or empty`, { cause });
  }
  const version = readVersion(join(distDir, '..', 'package.json'));
  return { file, version, size, etag: `"scalar-${version}-${size}"` };
}

function readVersion(packageJson: string): string {
  try {
    const parsed = JSON.parse(readFileSync(packageJson, 'utf8')) as { name?: unknown; version?: unknown };
    if (parsed.name === SCALAR_PACKAGE && typeof parsed.version === 'string' && /^[\w.+-]+$/.test(parsed.version)) {
      return parsed.version;
    }
    throw new Error(`${packageJson} does not name ${SCALAR_PACKAGE} with a plain version`);
  } catch (cause) {
    throw new ScalarBundleMissingError(`its package.json (${packageJson}) cannot be read`, { cause });
  }
}
