import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './helpers.js';

/** A real `kindgi-server` (packages/server/dist/main.js) serving the example pack, and its dev token. */
export interface TestServer {
  readonly child: ChildProcess;
  readonly url: string;
  readonly token: string;
  stop(): Promise<void>;
}

const SERVER_MAIN = join(REPO_ROOT, 'packages/server/dist/main.js');
const EXAMPLE_PACK_DIR = join(REPO_ROOT, 'packages/example-pack');

/**
 * Starts a server on 127.0.0.1 (port 0) with a config in `dir` serving packages/example-pack, and waits for
 * its `listening` record. Its own process group, so `stop` ends its pack services too.
 */
export async function startTestServer(dir: string): Promise<TestServer> {
  // Run as root, the server starts pack services as `nobody`: it may pass through, not list.
  chmodSync(dir, 0o711);
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const configPath = join(dir, 'kindgi.server.json');
  const config = {
    host: '127.0.0.1',
    port: 0,
    dataDir,
    packs: [{ dir: EXAMPLE_PACK_DIR, env: { ACME_API_BASE: 'https://cases.acme.invalid' } }],
  };
  writeFileSync(configPath, `${JSON.stringify(config)}\n`, { mode: 0o600 });
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('KINDGI_')) env[name] = value;
  const child = spawn(process.execPath, [SERVER_MAIN, '--config', configPath], {
    cwd: dir,
    env,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let pending = '';
    const tail: string[] = [];
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        tail.push(line);
        try {
          const record = JSON.parse(line) as { event?: string; url?: string };
          if (record.event === 'listening' && typeof record.url === 'string') resolve(record.url);
        } catch {
          // Not a log record.
        }
      }
    });
    void exited.then(() => reject(new Error(`kindgi-server exited before listening:\n${tail.slice(-10).join('\n')}`)));
  });
  const { token } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { token: string };
  return {
    child,
    url,
    token,
    async stop() {
      if (child.exitCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          // Already gone.
        }
      }
      await exited;
    },
  };
}

/** Writes `<packDir>/.kindgi/dev.json` as `kindgi dev` does, pointing at `server` (pid: this process). */
export function writeDevSession(packDir: string, server: { url: string; token: string }, pid = process.pid): void {
  mkdirSync(join(packDir, '.kindgi'), { recursive: true });
  const session = { url: server.url, token: server.token, pid };
  writeFileSync(join(packDir, '.kindgi', 'dev.json'), `${JSON.stringify(session)}\n`, { mode: 0o600 });
}
