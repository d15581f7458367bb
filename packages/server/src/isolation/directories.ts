import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import { accessibleTo } from './access.js';
import type { PackUser } from './pack-user.js';

/**
 * Makes `dataDir` (created if missing) unreachable to `user`: the server's own folder, so its mode becomes
 * 0700 when it let that user in. Answers whether it had to change it.
 */
export function closeDataDir(dataDir: string, user: PackUser): Result<boolean, string> {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (!accessibleTo(dataDir, user, 'traverse')) return ok(false);
    if (statSync(dataDir).uid !== process.getuid?.()) {
      return err(`${dataDir}: the pack user ${user.name} can enter the data directory, which the server does not own`);
    }
    chmodSync(dataDir, 0o700);
    return ok(true);
  } catch (cause) {
    return err(`${dataDir}: cannot restrict the data directory: ${messageOf(cause)}`);
  }
}

/** Where local pack services find what the server prepared for them (index, Java snapshots, a home). */
export interface PackRuntimeDir {
  readonly path: string;
  /** The folder of the pack at `position`, readable by the pack user, with a `home` it owns. */
  packDir(position: number): Result<{ workDir: string; home: string }, string>;
  remove(): void;
}

/**
 * A fresh folder outside the data directory for the files pack services must read when they run as
 * `user`: the server writes them (0755 folders, 0644 files), the pack user owns only its `home`.
 */
export function createPackRuntimeDir(user: PackUser): Result<PackRuntimeDir, string> {
  let path: string;
  try {
    path = mkdtempSync(join(tmpdir(), 'kindgi-packs-'));
    chmodSync(path, 0o755);
  } catch (cause) {
    return err(`cannot create the pack runtime folder in ${tmpdir()}: ${messageOf(cause)}`);
  }
  return ok({
    path,
    packDir(position) {
      const workDir = join(path, String(position));
      const home = join(workDir, 'home');
      try {
        mkdirSync(home, { recursive: true, mode: 0o755 });
        chownSync(home, user.uid, user.gid);
        chmodSync(home, 0o700);
        return ok({ workDir, home });
      } catch (cause) {
        return err(`cannot prepare ${workDir} for the pack user ${user.name}: ${messageOf(cause)}`);
      }
    },
    remove() {
      rmSync(path, { recursive: true, force: true });
    },
  });
}
