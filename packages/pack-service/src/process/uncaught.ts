import { dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PackLog } from '../log/log.js';

/**
 * The exit code of a pack service that stopped because its own state is unknown (EX_SOFTWARE): the
 * supervisor or platform restarts it.
 */
export const PACK_UNCAUGHT_EXIT_CODE = 70;

/** What decides whether an uncaught exception leaves the service's own state intact. */
export interface UncaughtPolicyOptions {
  /** Files and folders holding the service's own code (this package, the runner, the protocol). */
  ownCode: { files: readonly string[]; dirs: readonly string[] };
  /** The pack's module root: code under it is the pack's, unless it sits in a `node_modules/@kindgi/` folder. */
  moduleRoot: string;
}

const FRAME_FILE = /\((?:file:\/\/)?(\/[^:()]+):\d+:\d+\)|at (?:file:\/\/)?(\/[^:()\s]+):\d+:\d+/g;

function framesOf(error: unknown): string[] {
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : '';
  const files: string[] = [];
  for (const match of stack.matchAll(FRAME_FILE)) {
    const file = match[1] ?? match[2];
    if (file !== undefined) files.push(decodeURIComponent(file));
  }
  return files;
}

const within = (file: string, dir: string): boolean => file.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);

/**
 * True when an uncaught exception passed through the service's own code: a frame of it is on the stack,
 * so one of its callbacks was cut short and its state is unknown. A throw from pack code alone (a timer,
 * an event listener, a library the pack uses) leaves the service's state as it was.
 */
export function isServiceFault(error: unknown, options: UncaughtPolicyOptions): boolean {
  const root = options.moduleRoot;
  return framesOf(error).some((file) => {
    if (options.ownCode.files.includes(file)) return true;
    if (!options.ownCode.dirs.some((dir) => within(file, dir))) return false;
    // A bundled image keeps pack bundles beside the service's: under the module root it is the pack's.
    return !within(file, root) || file.includes(`${sep}node_modules${sep}@kindgi${sep}`);
  });
}

/** Where this module's code lives, plus the packages it runs with (when they resolve from here). */
export function ownCodeLocations(): UncaughtPolicyOptions['ownCode'] {
  const self = fileURLToPath(import.meta.url);
  const dirs = [dirname(self)];
  for (const specifier of ['@kindgi/call-runner', '@kindgi/protocol']) {
    try {
      dirs.push(dirname(fileURLToPath(import.meta.resolve(specifier))));
    } catch {
      // Bundled together with this module: its own file covers them.
    }
  }
  return { files: [self], dirs };
}

/**
 * Contains exceptions nothing caught (pack code's `setTimeout(() => { throw … })`): each is logged as
 * `pack-uncaught` with its stack and the service keeps serving. Only a fault that went through the
 * service's own code calls `onFatal`, since then nobody knows what state the service is in.
 */
export function containUncaught(log: PackLog, options: UncaughtPolicyOptions, onFatal: () => void): void {
  process.on('uncaughtException', (error) => {
    const fatal = isServiceFault(error, options);
    const stack = error instanceof Error ? error.stack : undefined;
    const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    log.lifecycle(
      'pack-uncaught',
      'error',
      fatal
        ? `An exception went uncaught through the pack service's own code: ${what} (stopping, to be restarted)`
        : `Pack code threw outside any call: ${what} (the service keeps serving)`,
      { fatal, stack },
    );
    if (fatal) onFatal();
  });
}
