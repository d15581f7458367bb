import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  makeTempDir,
  SERVER_MAIN,
  spawnServer,
  startServer,
  stderrOf,
  stopAllServers,
  writeConfig,
} from './harness.js';

// A data directory belongs to one server at a time, by an operating-system lock the kernel drops when the
// process ends (not by a recorded pid): a second server on it is refused, and a server killed with SIGKILL is
// replaced at once, even while the dead one is still a zombie its parent has not reaped.
const stop: Array<() => void> = [];

afterEach(async () => {
  for (const undo of stop.splice(0)) undo();
  await stopAllServers();
  cleanupTempDirs();
});

function configFor(label: string): string {
  const dir = makeTempDir(label);
  return writeConfig(dir, join(dir, 'data'), { packs: [], docs: false, drainMs: 1_000 });
}

/** The state letter of /proc/<pid>/stat (`Z` for a zombie), or undefined once the pid is gone. */
function stateOf(pid: number): string | undefined {
  try {
    return /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/** Resolves once `done` holds (looking every 20 ms), failing after `limitMs`: a bound on a wait, not a bet. */
async function until(done: () => boolean, what: string, limitMs = 60_000): Promise<void> {
  const started = Date.now();
  while (!done()) {
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Starts a server whose parent never reaps it: `sh` starts it in the background and becomes `sleep`, which
 * ignores its children's exits. Resolves with the server's pid once it listens.
 */
function startUnreaped(configPath: string): Promise<number> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('KINDGI_SERVER_')) env[name] = value;
  const script = `"$0" "$1" --config "$2" 2>&1 & echo "pid $!"; exec sleep 600`;
  const parent = spawn('sh', ['-c', script, process.execPath, SERVER_MAIN, configPath], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  stop.push(() => parent.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    let out = '';
    parent.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const pid = /^pid (\d+)$/m.exec(out)?.[1];
      if (pid !== undefined && /"event":"listening"/.test(out)) resolve(Number(pid));
    });
    parent.once('exit', () => reject(new Error(`the server's parent exited first: ${out}`)));
  });
}

describe('one server per data directory, by a lock (dist/main.js)', () => {
  it('a second server on the same data directory is refused, naming the first', async () => {
    const config = configFor('lock-two');
    const first = await startServer(config);
    const second = spawnServer(['--config', config]);
    expect((await second.exited).code).toBe(1);
    expect(stderrOf(second)).toContain(`is in use by process ${first.child.pid}`);
    // The first one serves on.
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
  }, 60_000);

  it('a server killed with SIGKILL is replaced at once, while the dead one is still a zombie', async () => {
    const config = configFor('lock-zombie');
    const pid = await startUnreaped(config);
    process.kill(pid, 'SIGKILL');
    // Dead but not reaped: its pid still exists (a pid check would call it alive), its locks are gone.
    await until(() => stateOf(pid) === 'Z', 'the killed server to be a zombie');
    const next = await startServer(config);
    expect((await fetch(`${next.url}/healthz`)).status).toBe(200);
    expect(stateOf(pid)).toBe('Z');
  }, 60_000);
});
