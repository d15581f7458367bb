import { realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { PackUser } from './pack-user.js';

/** What `ids` need of a path: to read a file, to list and enter a folder, or only to pass through it. */
export type AccessNeed = 'read' | 'list' | 'traverse';

const BITS: Record<AccessNeed, number> = { read: 4, list: 5, traverse: 1 };

/** The permission triplet (rwx as 0..7) of `mode` that applies to `ids`. */
function triplet(mode: number, owner: number, group: number, ids: Pick<PackUser, 'uid' | 'gid'>): number {
  if (ids.uid === owner) return (mode >> 6) & 7;
  if (ids.gid === group) return (mode >> 3) & 7;
  return mode & 7;
}

/**
 * Whether an unprivileged process with `ids` could `need` `path`, from the mode bits of the path and of
 * every folder above it (each must let it through). Decided by owner/group/other bits only: ACLs and
 * supplementary groups are not consulted, which errs towards "readable" for a supplementary group the
 * pack user is in (the server spawns pack services with no supplementary groups). A path that does not
 * exist answers false.
 * @example
 * accessibleTo('/etc/shadow', { uid: 65534, gid: 65534 }, 'read'); // false
 */
export function accessibleTo(path: string, ids: Pick<PackUser, 'uid' | 'gid'>, need: AccessNeed): boolean {
  if (ids.uid === 0) return true;
  let current: string;
  try {
    // The folders that count are those of the real path, not of a symlink on the way.
    current = realpathSync(resolve(path));
  } catch {
    return false;
  }
  let wanted = BITS[need];
  for (;;) {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(current);
    } catch {
      return false;
    }
    if ((triplet(stat.mode, stat.uid, stat.gid, ids) & wanted) !== wanted) return false;
    const parent = dirname(current);
    if (parent === current) return true;
    current = parent;
    wanted = BITS.traverse;
  }
}
