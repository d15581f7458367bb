import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describeThrown, err, ok, type Result } from '@kindgi/protocol';

/** What an imported module exposes: its exports by name (`default` among them). */
export type ModuleNamespace = Record<string, unknown>;

const TYPESCRIPT = /\.(?:ts|mts|cts|tsx)$/;

type TsxApi = { register: () => unknown };
type ExportsEntry = { import?: { default?: string } };

/** Where an installed tsx's ESM API is: its package.json's own `exports` say. */
function tsxApiUrl(from: string, api: './esm/api' | './cjs/api'): string {
  const manifestPath = createRequire(from).resolve('tsx/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports?: Record<string, ExportsEntry> };
  const target = manifest.exports?.[api]?.import?.default;
  if (typeof target !== 'string') throw new Error(`${manifestPath} exports no ESM ${api}`);
  return pathToFileURL(join(dirname(manifestPath), target)).href;
}

/** tsx's API, from the install that holds `file` (the user's pack), else from the indexer's own install. */
async function importTsx(file: string, api: './esm/api' | './cjs/api'): Promise<TsxApi> {
  const problems: string[] = [];
  for (const from of [file, fileURLToPath(import.meta.url)]) {
    try {
      return (await import(/* @vite-ignore */ tsxApiUrl(from, api))) as TsxApi;
    } catch (cause) {
      problems.push(describeThrown(cause));
    }
  }
  throw new Error(
    `${file} is TypeScript, and tsx (which imports it) is not installed where the pack is (install tsx in the pack, or index its build with --bundle-map): ${problems[0]}`,
  );
}

let registering: Promise<void> | undefined;

function registerTypeScript(file: string): Promise<void> {
  // tsx's loader hooks: a pack's TypeScript (and its imports, ESM or CommonJS) loads with real Node
  // resolution, including ESM-only packages such as @kindgi/sdk, with no build step. Registered only for
  // a TypeScript file, so indexing JavaScript or a build needs no loader (and the bundle ships none).
  registering ??= (async () => {
    const [esm, cjs] = await Promise.all([importTsx(file, './esm/api'), importTsx(file, './cjs/api')]);
    esm.register();
    cjs.register();
  })();
  // A failed attempt is retried for the next TypeScript file (tsx may have been installed since).
  return registering.catch((cause: unknown) => {
    registering = undefined;
    throw cause;
  });
}

/**
 * Imports pack files and configs with Node's `import()`, TypeScript included. Each import is cache-busted
 * by the file's mtime (`?v=<mtime>`), so a long-running process sees edits while an unchanged file is
 * evaluated once.
 */
export class ReloadingModuleLoader {
  /** Imports `file` (absolute). Throws what the module throws. */
  async load(file: string): Promise<ModuleNamespace> {
    if (TYPESCRIPT.test(file)) await registerTypeScript(file);
    const { mtimeMs } = await stat(file);
    const url = `${pathToFileURL(file).href}?v=${Math.trunc(mtimeMs * 1000)}`;
    return interop((await import(/* @vite-ignore */ url)) as ModuleNamespace);
  }
}

/**
 * A TypeScript or ESM-syntax file in a CommonJS package is compiled to CommonJS, and importing it gives
 * `{ default: module.exports }` with the real exports one level down (`__esModule`). Lift them back up.
 */
function interop(namespace: ModuleNamespace): ModuleNamespace {
  const exported = namespace.default as Record<string, unknown> | undefined;
  if (typeof exported !== 'object' || exported === null || exported.__esModule !== true) return namespace;
  const lifted: ModuleNamespace = {};
  for (const [name, value] of Object.entries(exported)) if (name !== '__esModule') lifted[name] = value;
  return lifted;
}

/**
 * Imports many files with a few imports in flight at once (module loading waits on the disk and on the
 * TypeScript hooks' thread), each settled to a Result in the order given.
 */
export async function importAll(
  files: readonly string[],
  loader: ReloadingModuleLoader,
  concurrency = 8,
): Promise<Result<ModuleNamespace, unknown>[]> {
  const results: Result<ModuleNamespace, unknown>[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      try {
        results[i] = ok(await loader.load(files[i]!));
      } catch (cause) {
        results[i] = err(cause);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
  return results;
}

let shared: ReloadingModuleLoader | undefined;

/** The process-wide loader. */
export function sharedReloadingModuleLoader(): ReloadingModuleLoader {
  shared ??= new ReloadingModuleLoader();
  return shared;
}
