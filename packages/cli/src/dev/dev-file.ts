import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname } from 'node:path';

/** `<pack-dir>/.kindgi/dev.json`: how `kindgi call` and scripts reach a running `kindgi dev`. */
export interface DevFile {
  url: string;
  token: string;
  pid: number;
}

/** Writes the dev file, owner-only (it holds the token). */
export function writeDevFile(path: string, content: DevFile): void {
  mkdirSync(dirname(path), { recursive: true });
  // Removed first: a file left by a killed run may be another user's, and writeFileSync keeps an old mode.
  rmSync(path, { force: true });
  writeFileSync(path, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
}

export function removeDevFile(path: string): void {
  rmSync(path, { force: true });
}

/** `port` when it can be bound on 127.0.0.1 now, else 0 (any free port). */
export function portOrFree(port: number): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(0));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(port)));
  });
}
