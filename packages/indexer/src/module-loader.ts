import { stat } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { err, ok, type Result } from '@kindgi/protocol';
import { register as registerCjs } from 'tsx/cjs/api';
import { register as registerEsm } from 'tsx/esm/api';

/** What an imported module exposes: its exports by name (`default` among them). */
export type ModuleNamespace = Record<string, unknown>;

let registered = false;

function registerTypeScript(): void {
  if (registered) return;
  registered = true;
  // tsx's loader hooks: a pack's TypeScript (and its imports, ESM or CommonJS) loads with real Node
  // resolution, including ESM-only packages such as @kindgi/sdk, with no build step.
  registerEsm();
  registerCjs();
}

/**
 * Imports pack files and configs with Node's `import()`, TypeScript included. Each import is cache-busted
 * by the file's mtime (`?v=<mtime>`), so a long-running process sees edits while an unchanged file is
 * evaluated once.
 */
export class ModuleLoader {
  /** Imports `file` (absolute). Throws what the module throws. */
  async load(file: string): Promise<ModuleNamespace> {
    registerTypeScript();
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
  loader: ModuleLoader,
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

let shared: ModuleLoader | undefined;

/** The process-wide loader. */
export function sharedModuleLoader(): ModuleLoader {
  shared ??= new ModuleLoader();
  return shared;
}
