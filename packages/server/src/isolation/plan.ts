import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { err, ok, type Result } from '@kindgi/protocol';
import { accessibleTo } from './access.js';
import { DEFAULT_PACK_USER, type PackUser, resolvePackUser } from './pack-user.js';

/** How pack code is kept from what the server holds. */
export interface PackIsolation {
  /** The account pack services run as; absent: the server's own (then `exposures` says what that reaches). */
  readonly user?: PackUser;
  /** What pack code can read of the server's secrets and data, one line each; empty when nothing. */
  readonly exposures: readonly string[];
  /** Why a development deployment kept its packs as root rather than the default user (its problems). */
  readonly fellBack?: readonly string[];
}

export interface IsolationInput {
  /** `packUser` from the config, when set. */
  packUser: string | undefined;
  /** The server's uid (`process.getuid()`); undefined where there are no uids. */
  serverUid: number | undefined;
  configPath: string | undefined;
  /** The secret-bearing fields the config file sets. */
  fileSecrets: readonly string[];
  /** The secret-bearing variables of the server's environment. */
  environmentSecrets: readonly string[];
  dataDir: string;
  /** A development deployment (no configured token): it may keep packs as root when `nobody` cannot run them. */
  development: boolean;
  /** The folders of the packs this server runs itself. */
  packDirs: readonly string[];
  /** The pack service command (its files must be readable by the pack user). */
  command: readonly string[];
  passwdPath?: string;
}

/** The files of `command` a pack service needs to read: absolute paths and `file:` URLs. */
function commandFiles(command: readonly string[]): string[] {
  return command
    .map((part) => (part.startsWith('file:') ? fileURLToPath(part) : part))
    .filter((part) => isAbsolute(part) && existsSync(part));
}

/** What pack code running as the server's own user can read of its secrets and data. */
function exposuresAsServer(input: IsolationInput): string[] {
  const exposures: string[] = [];
  if (input.serverUid === 0) exposures.push('every file on this machine (pack code runs as root)');
  if (input.environmentSecrets.length > 0) {
    const names = input.environmentSecrets.join(', ');
    exposures.push(`the server's environment block (/proc/<server pid>/environ): ${names}`);
  }
  if (input.configPath && input.fileSecrets.length > 0) {
    exposures.push(`the config file ${input.configPath}: ${input.fileSecrets.join(', ')}`);
  }
  exposures.push(
    `the data directory ${input.dataDir} (every tenant's objects and runs, the cursor secret, development credentials)`,
  );
  return exposures;
}

/** Why `user` cannot run this server's packs safely or at all: one line per problem. */
function problemsFor(user: PackUser, input: IsolationInput): string[] {
  const who = `the pack user ${user.name} (uid ${user.uid})`;
  const problems: string[] = [];
  if (input.configPath && input.fileSecrets.length > 0 && accessibleTo(input.configPath, user, 'read')) {
    problems.push(
      `${input.configPath} holds secrets (${input.fileSecrets.join(', ')}) and ${who} can read it: chmod 600 it, or keep it in a folder that user cannot enter`,
    );
  }
  for (const dir of input.packDirs) {
    if (!accessibleTo(dir, user, 'list')) {
      problems.push(`${dir}: ${who} cannot read the pack's folder: make it readable (chmod -R o+rX) or set packUser`);
    }
  }
  for (const file of commandFiles(input.command)) {
    if (!accessibleTo(file, user, 'read')) {
      problems.push(`${file}: ${who} cannot read the pack service's code: make it readable or set packUser`);
    }
  }
  return problems;
}

/**
 * Decides who pack code runs as and checks that choice before any pack starts. A server running as root
 * runs packs as `packUser` (default `nobody`), and refuses to start when that user could read a config
 * file holding secrets or could not read a pack; `packUser: "root"` (or `0`) keeps packs as root, with
 * the exposures listed. A server that is not root cannot switch users: its packs run as itself and the
 * exposures say what they can read.
 */
export function planPackIsolation(input: IsolationInput): Result<PackIsolation, string[]> {
  const spec = input.packUser ?? (input.serverUid === 0 ? DEFAULT_PACK_USER : undefined);
  if (spec === undefined || input.serverUid === undefined) return ok({ exposures: exposuresAsServer(input) });
  const resolved = resolvePackUser(spec, input.passwdPath);
  if (resolved.kind === 'err') return err([resolved.error]);
  const user = resolved.value;
  if (user.uid === input.serverUid) return ok({ exposures: exposuresAsServer(input) });
  if (input.serverUid !== 0) {
    return err([
      `packUser: the server runs as uid ${input.serverUid} and cannot start pack services as ${user.name} (uid ${user.uid}); run it as root, or leave packUser unset`,
    ]);
  }
  const problems = problemsFor(user, input);
  if (problems.length === 0) return ok({ user, exposures: [] });
  // A checkout under /root run with `pnpm start` is the usual development case: the default user cannot
  // read it, and there is no tenant's secret to protect yet. A configured deployment never falls back.
  if (input.development && input.packUser === undefined) {
    return ok({ exposures: exposuresAsServer(input), fellBack: problems });
  }
  return err(problems);
}
