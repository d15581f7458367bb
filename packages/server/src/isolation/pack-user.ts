import { readFileSync } from 'node:fs';
import { err, ok, type Result } from '@kindgi/protocol';

/** The account pack services run as. */
export interface PackUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/** Who pack code runs as when the server runs as root and the config names no one. */
export const DEFAULT_PACK_USER = 'nobody';

const NUMERIC = /^(\d{1,10})(?::(\d{1,10}))?$/;

/** `/etc/passwd` lines: name, password, uid, gid, … */
function passwdEntry(passwd: string, name: string): PackUser | undefined {
  for (const line of passwd.split('\n')) {
    const [entryName, , uid, gid] = line.split(':');
    if (entryName === name && uid !== undefined && gid !== undefined && /^\d+$/.test(uid) && /^\d+$/.test(gid)) {
      return { name, uid: Number(uid), gid: Number(gid) };
    }
  }
  return undefined;
}

/**
 * The account `spec` names: a user name from `/etc/passwd`, or `uid` / `uid:gid` (a bare uid takes the
 * same number as its group). Numeric ids need no account, so an image without `/etc/passwd` entries works.
 * @example
 * resolvePackUser('nobody'); // ok({ name: 'nobody', uid: 65534, gid: 65534 })
 * resolvePackUser('1000:1000'); // ok({ name: '1000:1000', uid: 1000, gid: 1000 })
 */
export function resolvePackUser(spec: string, passwdPath = '/etc/passwd'): Result<PackUser, string> {
  const numeric = NUMERIC.exec(spec);
  if (numeric) {
    const uid = Number(numeric[1]);
    return ok({ name: spec, uid, gid: numeric[2] === undefined ? uid : Number(numeric[2]) });
  }
  let passwd: string;
  try {
    passwd = readFileSync(passwdPath, 'utf8');
  } catch {
    return err(`packUser: cannot read ${passwdPath} to find the user '${spec}' (give a numeric uid:gid instead)`);
  }
  const entry = passwdEntry(passwd, spec);
  return entry ? ok(entry) : err(`packUser: no user '${spec}' in ${passwdPath} (give an existing user or uid:gid)`);
}
