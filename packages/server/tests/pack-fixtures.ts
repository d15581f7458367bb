import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runIndexer } from '@kindgi/indexer';
import { EXAMPLE_PACK_DIR } from './harness.js';

const PACK_PARTS = ['kindgi.config.ts', 'package.json', 'tools', 'guardrails', 'agents', 'flows', 'lib'];
const PACK_SERVICE_MAIN = fileURLToPath(new URL('../../pack-service/dist/main.js', import.meta.url));
const TSX_LOADER = pathToFileURL(
  fileURLToPath(new URL('../node_modules/tsx/dist/esm/index.mjs', import.meta.url)),
).href;

/** A private copy of the example pack to edit (its dependencies are the original's, through a link). */
export function copyExamplePack(root: string): string {
  const dir = join(root, 'pack');
  for (const part of PACK_PARTS) cpSync(join(EXAMPLE_PACK_DIR, part), join(dir, part), { recursive: true });
  symlinkSync(join(EXAMPLE_PACK_DIR, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** A pack service process serving the example pack on its own, the way a pack image runs it. */
export interface RemotePackService {
  readonly child: ChildProcess;
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** Every JSON record it wrote on stderr. */
  readonly records: Record<string, unknown>[];
  /** Every line it wrote (JSON or not). */
  readonly lines: string[];
  readonly exited: Promise<void>;
  /** Resolves with the first record (written already or still to come) that matches. */
  waitFor(predicate: (record: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** SIGKILL (and SIGCONT first, should it be stopped), then waits for the exit. */
  kill(): Promise<void>;
}

const live = new Set<RemotePackService>();

/** Indexes the example pack into `workDir` (once per directory). */
export async function indexExamplePack(workDir: string): Promise<string> {
  const indexPath = join(workDir, 'index.json');
  const outcome = await runIndexer({ packDir: EXAMPLE_PACK_DIR, outputPath: indexPath });
  if (outcome.kind === 'err') throw new Error(`indexing the example pack failed: ${outcome.error.message}`);
  return indexPath;
}

/** Starts `pack-service dist/main.js` on `indexPath` and resolves once it logged `listening`. */
export function startRemotePackService(options: {
  indexPath: string;
  token: string;
  port?: number;
  env?: Record<string, string>;
  /** The pack's folder (its modules and node_modules); the example pack when absent. */
  moduleRoot?: string;
}): Promise<RemotePackService> {
  const moduleRoot = options.moduleRoot ?? EXAMPLE_PACK_DIR;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    PORT: String(options.port ?? 0),
    KINDGI_LOG_FORMAT: 'json',
    ...(options.env ?? {}),
  };
  const child = spawn(
    process.execPath,
    [
      '--import',
      TSX_LOADER,
      PACK_SERVICE_MAIN,
      '--index',
      options.indexPath,
      '--module-root',
      moduleRoot,
      '--host',
      '127.0.0.1',
      '--token-fd',
      '3',
    ],
    // The token on a descriptor, not in the environment: the service then runs in this very process (it
    // re-runs itself in a child to keep a token in its environment away from pack code), so a signal sent
    // to it reaches the process that serves.
    { cwd: moduleRoot, env, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] },
  );
  (child.stdio[3] as NodeJS.WritableStream).end(options.token);
  const waiters: {
    predicate: (record: Record<string, unknown>) => boolean;
    resolve: (record: Record<string, unknown>) => void;
  }[] = [];
  const records: Record<string, unknown>[] = [];
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return new Promise((resolve, reject) => {
    let pending = '';
    let settled = false;
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        lines.push(line);
        let record: Record<string, unknown>;
        try {
          record = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue;
        }
        records.push(record);
        for (const waiter of [...waiters]) {
          if (waiter.predicate(record)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(record);
          }
        }
        if (!settled && record.event === 'listening' && typeof record.port === 'number') {
          settled = true;
          const port = record.port;
          const service: RemotePackService = {
            child,
            url: `http://127.0.0.1:${port}`,
            port,
            token: options.token,
            records,
            lines,
            exited,
            waitFor(predicate) {
              const seen = records.find(predicate);
              return seen ? Promise.resolve(seen) : new Promise((done) => waiters.push({ predicate, resolve: done }));
            },
            async kill() {
              child.kill('SIGCONT');
              child.kill('SIGKILL');
              await exited;
              live.delete(service);
            },
          };
          live.add(service);
          resolve(service);
        }
      }
    });
    void exited.then(() => {
      if (!settled) reject(new Error(`the pack service exited before listening:\n${lines.slice(-10).join('\n')}`));
    });
  });
}

/** Kills every pack service a test started and has not killed. */
export async function stopRemotePackServices(): Promise<void> {
  await Promise.all([...live].map((service) => service.kill()));
}
