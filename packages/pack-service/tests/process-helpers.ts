import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The built process entry: process tests run against `dist/` (`pnpm --filter @kindgi/pack-service build`). */
export const mainJs = fileURLToPath(new URL('../dist/main.js', import.meta.url));

export interface ServiceProcess {
  child: ChildProcess;
  /** Every stderr line, raw. */
  stderr: string[];
  /** Every stdout line, raw. */
  stdout: string[];
  /** Parsed JSON records from stderr (non-JSON lines skipped). */
  records: () => Record<string, unknown>[];
  /** Resolves with the first line (stderr or stdout, past or future) that `test` accepts. */
  waitForLine(test: (line: string) => boolean): Promise<string>;
  waitForRecord(test: (record: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** How `spawnService` wires the process beyond argv and env. */
export interface SpawnOptions {
  /** Written to descriptor 3 and closed (pass `--token-fd 3`). */
  tokenOnFd3?: string;
  /** stdin as a pipe the test holds (a supervisor's), instead of ignored. */
  stdinPipe?: boolean;
}

/** Spawns `node dist/main.js` with exactly `env` (plus PATH). */
export function spawnService(args: string[], env: Record<string, string>, options: SpawnOptions = {}): ServiceProcess {
  const stdin = options.stdinPipe ? 'pipe' : 'ignore';
  const child = spawn(process.execPath, [mainJs, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: options.tokenOnFd3 === undefined ? [stdin, 'pipe', 'pipe'] : [stdin, 'pipe', 'pipe', 'pipe'],
  });
  if (options.tokenOnFd3 !== undefined) (child.stdio[3] as NodeJS.WritableStream).end(options.tokenOnFd3);
  running.add(child);
  const stderr: string[] = [];
  const stdout: string[] = [];
  const waiters: { test: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  const feed = (into: string[]) => (line: string) => {
    into.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.test(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  };
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', feed(stderr));
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', feed(stdout));
  const exited = once(child, 'exit').then(([code]) => {
    running.delete(child);
    return code as number | null;
  });
  const parse = (line: string): Record<string, unknown> | undefined => {
    try {
      const value = JSON.parse(line) as unknown;
      return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  };
  const waitForLine = (test: (line: string) => boolean): Promise<string> => {
    const found = [...stderr, ...stdout].find(test);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => waiters.push({ test, resolve }));
  };
  return {
    child,
    stderr,
    stdout,
    records: () =>
      stderr.flatMap((line) => {
        const record = parse(line);
        return record ? [record] : [];
      }),
    waitForLine,
    async waitForRecord(test) {
      const line = await waitForLine((l) => {
        const record = parse(l);
        return record !== undefined && test(record);
      });
      return parse(line) as Record<string, unknown>;
    },
    exited,
  };
}

/** Waits for the `listening` record and returns the service's base URL. */
export async function listeningUrl(service: ServiceProcess): Promise<string> {
  const record = await service.waitForRecord((r) => r.event === 'listening');
  return `http://127.0.0.1:${record.port as number}`;
}

/** Kills every child still running (afterEach). */
export async function killAll(): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      const gone = once(child, 'exit');
      child.kill('SIGKILL');
      await gone;
    }),
  );
}
