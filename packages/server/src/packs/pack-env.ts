import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import type { PackIndex } from '@kindgi/protocol';
import type { PackConfig } from '../config/config.js';

// What a pack service needs from the server's environment to run at all (SYSTEMROOT: Node on Windows).
const PROCESS_ENV_NAMES = ['PATH', 'HOME', 'TMPDIR', 'SYSTEMROOT'];
// What a deployment's pack service also gets by default: its locale and time zone.
const INHERITED_ENV_NAMES = ['LANG', 'TZ'];
/** The env files of a pack folder, in the order they apply (the later wins). */
export const PACK_ENV_FILES = ['.env', '.env.local'] as const;

function readEnvFile(path: string): Record<string, string> {
  try {
    return parseEnv(readFileSync(path, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

/** The pack's own values: its env files, then the config's `env` on top. */
export function packEnvValues(pack: PackConfig): Record<string, string> {
  const files = PACK_ENV_FILES.map((name) => readEnvFile(join(pack.dir, name)));
  return Object.assign({}, ...files, pack.env ?? {});
}

function copy(env: Record<string, string>, names: readonly string[]): void {
  for (const name of names) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
}

/**
 * The pack service's environment. By default (`inheritEnv` unset or true) the server's basics, locale,
 * `OTEL_*` settings and the pack's declared names set in the server's environment, then the pack's values;
 * with `inheritEnv: false` only `PATH`, `HOME`, `TMPDIR` (and `SYSTEMROOT`) come from the server.
 */
export function packEnv(pack: PackConfig, index: PackIndex, home: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  copy(env, PROCESS_ENV_NAMES);
  if (pack.inheritEnv !== false) {
    copy(env, INHERITED_ENV_NAMES);
    // The server's OTEL_* settings reach the pack service, so its spans join the server's traces (the
    // service names itself: the server's OTEL_SERVICE_NAME is not passed).
    for (const [name, value] of Object.entries(process.env)) {
      if (name.startsWith('OTEL_') && name !== 'OTEL_SERVICE_NAME' && value !== undefined) env[name] = value;
    }
    // A declared name set in the server's environment reaches the pack (a deployment's secret store).
    copy(env, [...(index.env?.required ?? []), ...(index.env?.optional ?? [])]);
  }
  Object.assign(env, packEnvValues(pack));
  env.KINDGI_PACK_ENV_CHECK = pack.envCheck ?? 'strict';
  if (pack.envFilter !== undefined) env.KINDGI_PACK_ENV_FILTER = pack.envFilter;
  // The server's own HOME is not the pack user's to read or write.
  if (home !== undefined) env.HOME = home;
  return env;
}

/** Names only: the pack's own variables, and the declared ones its service gets no value for. */
export interface PackEnvReport {
  loaded: string[];
  missingRequired: string[];
  missingOptional: string[];
}

/** What `env` (the service's environment) holds of the pack's own and declared variables, by name. */
export function packEnvReport(pack: PackConfig, index: PackIndex, env: Record<string, string>): PackEnvReport {
  const unset = (name: string) => env[name] === undefined || env[name] === '';
  return {
    loaded: Object.keys(packEnvValues(pack)).sort(),
    missingRequired: (index.env?.required ?? []).filter(unset),
    missingOptional: (index.env?.optional ?? []).filter(unset),
  };
}

/** True when `changed` (a path relative to the pack folder) is one of its env files. */
export function isPackEnvFile(changed: string | null): boolean {
  return changed !== null && (PACK_ENV_FILES as readonly string[]).includes(changed);
}
