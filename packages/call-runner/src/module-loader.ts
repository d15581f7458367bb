import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describeThrown, err, ok, type Result } from '@kindgi/protocol';

/** Replaces the default `import()` of a module path (tests and bundlers use it). */
export type ModuleImporter = (modulePath: string) => unknown;

/** Why a module could not be imported: the thrown value and its `Name: message` form. */
export interface ModuleImportFailure {
  readonly thrown: unknown;
  readonly description: string;
}

type Entry =
  | { state: 'ready'; value: unknown }
  | { state: 'loading'; promise: Promise<Result<unknown, ModuleImportFailure>> };

// A URL scheme of two letters or more; one letter would be a Windows drive (`C:\…`).
const URL_SCHEME = /^[a-z][a-z0-9+.-]+:/i;

/**
 * The specifier `import()` needs for a module path: URLs (`file:`, `data:`, `node:`) as they are,
 * file paths (absolute, or relative to the working directory) as `file:` URLs, so that spaces, `#`
 * and `?` in a path are escaped instead of read as URL syntax.
 */
export function toModuleSpecifier(modulePath: string): string {
  if (URL_SCHEME.test(modulePath)) return modulePath;
  return pathToFileURL(isAbsolute(modulePath) ? modulePath : resolve(modulePath)).href;
}

const defaultImporter: ModuleImporter = (modulePath) => import(toModuleSpecifier(modulePath));

/**
 * Imports modules once per path and keeps them: every later call for the path reuses the first import.
 * A failed import is not kept, so a module that appears or is fixed later can still load. (The indexer's
 * `ReloadingModuleLoader` instead imports a file again whenever it changed.)
 */
export class ModuleCache {
  readonly #byImporter = new WeakMap<ModuleImporter, Map<string, Entry>>();

  /** The module at `modulePath`; never throws. Synchronous-cheap once the module is loaded. */
  load(
    modulePath: string,
    importer: ModuleImporter = defaultImporter,
  ): Result<unknown, ModuleImportFailure> | Promise<Result<unknown, ModuleImportFailure>> {
    let entries = this.#byImporter.get(importer);
    if (!entries) {
      entries = new Map();
      this.#byImporter.set(importer, entries);
    }
    const entry = entries.get(modulePath);
    if (entry?.state === 'ready') return ok(entry.value);
    if (entry?.state === 'loading') return entry.promise;
    const cache = entries;
    const promise = importOnce(modulePath, importer).then((outcome) => {
      if (outcome.kind === 'ok') cache.set(modulePath, { state: 'ready', value: outcome.value });
      else cache.delete(modulePath);
      return outcome;
    });
    cache.set(modulePath, { state: 'loading', promise });
    return promise;
  }

  /** Forgets every module imported through `importer` (default: the built-in `import()`). */
  clear(importer: ModuleImporter = defaultImporter): void {
    this.#byImporter.delete(importer);
  }
}

async function importOnce(modulePath: string, importer: ModuleImporter): Promise<Result<unknown, ModuleImportFailure>> {
  try {
    return ok(await importer(modulePath));
  } catch (thrown) {
    return err({ thrown, description: describeThrown(thrown) });
  }
}

/** The loader `runHandler` and `runCheck` share unless given their own. */
export const sharedModuleCache = new ModuleCache();

/**
 * Imports a module through the runners' shared cache, so a module imported here (for example by a pack
 * service's prewarm at boot) is not imported again by the first call.
 */
export function importModuleOnce(
  modulePath: string,
  importer?: ModuleImporter,
): Promise<Result<unknown, ModuleImportFailure>> {
  return Promise.resolve(sharedModuleCache.load(modulePath, importer));
}
