import { compareCodeUnits, err, ok, type PackEnvDeclaration, type Result } from '@kindgi/protocol';

/** The variable that turns the process entry's env filter off (`off`) or on (`on`, the default). */
export const PACK_ENV_FILTER_VAR = 'KINDGI_PACK_ENV_FILTER';

/**
 * Variables a platform or language runtime sets that pack code may rely on without declaring them: the
 * process basics, runtime settings, `PORT`, proxies and certificates, and workload identity/metadata.
 */
export const PLATFORM_ENV_NAMES: readonly string[] = Object.freeze([
  // process
  'PATH',
  'HOME',
  'HOSTNAME',
  'USER',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TMP',
  'TEMP',
  'PWD',
  'SHLVL',
  '_',
  '__CF_USER_TEXT_ENCODING',
  // language runtimes
  'NODE_ENV',
  'NODE_VERSION',
  'YARN_VERSION',
  'NODE_OPTIONS',
  'NODE_EXTRA_CA_CERTS',
  'JAVA_HOME',
  'JAVA_VERSION',
  'JAVA_TOOL_OPTIONS',
  'JDK_JAVA_OPTIONS',
  '_JAVA_OPTIONS',
  'VIRTUAL_ENV',
  'PORT',
  // network
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  // Cloud Run
  'K_SERVICE',
  'K_REVISION',
  'K_CONFIGURATION',
  // AWS
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_EXECUTION_ENV',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_ROLE_ARN',
  'ECS_CONTAINER_METADATA_URI',
  'ECS_CONTAINER_METADATA_URI_V4',
  // Azure
  'IDENTITY_ENDPOINT',
  'IDENTITY_HEADER',
  'MSI_ENDPOINT',
  'MSI_SECRET',
  'AZURE_CLIENT_ID',
  'AZURE_TENANT_ID',
  'AZURE_FEDERATED_TOKEN_FILE',
  'AZURE_AUTHORITY_HOST',
]);

/** Name prefixes of platform variables kept by the env filter, in the published order. */
export const PLATFORM_ENV_PREFIXES: readonly string[] = Object.freeze([
  'LC_',
  'PYTHON',
  'OTEL_',
  'CLOUD_RUN_',
  'CONTAINER_APP_',
]);

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const platformNames: ReadonlySet<string> = new Set(PLATFORM_ENV_NAMES);

/** A pack's declared env with both lists present and sorted by code unit. */
export interface ResolvedPackEnv {
  required: string[];
  optional: string[];
}

type EnvList = 'required' | 'optional';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a pack's `env` declaration (`{required?, optional?}`) and returns both lists sorted; every
 * problem found is reported, joined with `; `. `undefined` declares nothing.
 */
export function resolvePackEnv(declaration: unknown): Result<ResolvedPackEnv, string> {
  if (declaration === undefined || declaration === null) return ok({ required: [], optional: [] });
  if (!isPlainObject(declaration)) {
    return err('`env` must be an object with `required` and/or `optional` lists of names');
  }
  const problems: string[] = [];
  for (const key of Object.keys(declaration)) {
    if (key !== 'required' && key !== 'optional')
      problems.push(`\`env\` takes only \`required\` and \`optional\`, not \`${key}\``);
  }
  const seen = new Map<string, EnvList>();
  const lists: ResolvedPackEnv = { required: [], optional: [] };
  for (const list of ['required', 'optional'] as const) {
    const names = declaration[list];
    if (names === undefined) continue;
    if (!Array.isArray(names)) {
      problems.push(`\`env.${list}\` must be a list of names`);
      continue;
    }
    for (const name of names) {
      if (typeof name !== 'string' || !ENV_NAME.test(name)) {
        problems.push(`${JSON.stringify(name)} in \`env.${list}\` isn't an environment variable name`);
        continue;
      }
      if (name.startsWith('KINDGI_')) {
        problems.push(`"${name}" in \`env.${list}\`: \`KINDGI_*\` names configure Kindgi, not the pack`);
        continue;
      }
      const earlier = seen.get(name);
      if (earlier === list) {
        problems.push(`"${name}" is listed twice in \`env.${list}\``);
        continue;
      }
      if (earlier !== undefined) {
        problems.push(`"${name}" is in both \`env.required\` and \`env.optional\``);
        continue;
      }
      seen.set(name, list);
      lists[list].push(name);
    }
  }
  if (problems.length > 0) return err(problems.join('; '));
  lists.required.sort(compareCodeUnits);
  lists.optional.sort(compareCodeUnits);
  return ok(lists);
}

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
