import { compareCodeUnits, type PackEnvDeclaration, validatePackEnvDeclaration } from '@kindgi/protocol';
import platformEnv from '../../../../specs/platform-env.json' with { type: 'json' };

/** The variable that turns the process entry's env filter off (`off`) or on (`on`, the default). */
export const PACK_ENV_FILTER_VAR = 'KINDGI_PACK_ENV_FILTER';

/**
 * Variables a platform or language runtime sets that pack code may rely on without declaring them: the
 * process basics, runtime settings, `PORT`, proxies and certificates, and workload identity/metadata.
 * The one table is `specs/platform-env.json`, shared with the Java SDK and bundled here at build time.
 */
export const PLATFORM_ENV_NAMES: readonly string[] = Object.freeze([...platformEnv.names]);

/** Name prefixes of platform variables kept by the env filter, in the published order. */
export const PLATFORM_ENV_PREFIXES: readonly string[] = Object.freeze([...platformEnv.prefixes]);

export type { ResolvedPackEnv } from '@kindgi/protocol';

const platformNames: ReadonlySet<string> = new Set(PLATFORM_ENV_NAMES);

/**
 * Checks a pack's `env` declaration and returns both lists sorted: the seed's name for protocol's
 * `validatePackEnvDeclaration`, the one rule set the SDK, the indexer and the service share.
 */
export const resolvePackEnv = validatePackEnvDeclaration;

/** Required names that are unset or empty (whitespace counts as set), sorted by code unit. */
export function missingPackEnv(
  declaration: PackEnvDeclaration | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const required = declaration?.required ?? [];
  return required.filter((name) => env[name] === undefined || env[name] === '').sort(compareCodeUnits);
}

/** True for a variable the env filter keeps whatever the pack declares. */
export function isPlatformEnvName(name: string): boolean {
  if (name.startsWith('KINDGI_') || platformNames.has(name)) return true;
  return PLATFORM_ENV_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/**
 * The variables of `env` the env filter drops: neither declared by the pack, nor `KINDGI_*`, nor a
 * platform variable. Sorted by code unit; names only.
 */
export function undeclaredPackEnv(
  declaration: PackEnvDeclaration | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const declared = new Set([...(declaration?.required ?? []), ...(declaration?.optional ?? [])]);
  return Object.keys(env)
    .filter((name) => env[name] !== undefined && !declared.has(name) && !isPlatformEnvName(name))
    .sort(compareCodeUnits);
}
