import { readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { describeThrown, err, isResult, ok, type Result, validatePackEnvDeclaration } from '@kindgi/protocol';
import { KINDGI_CONFIG_FILENAMES, type PackLanguage, PRIMITIVE_KINDS } from '../constants.js';
import { errorText } from '../entries/definitions.js';
import { type IndexerError, indexerError } from '../errors.js';
import { sharedReloadingModuleLoader } from '../indexing/module-loader.js';
import { configFormatOf, findAllKindgiConfigs, readPyprojectTable } from './find.js';
import type { KindgiConfig, KindgiConfigLocation } from './types.js';

const LANGUAGES: readonly PackLanguage[] = ['node', 'python', 'java', 'scala'];

/** A loaded config and where it came from. */
export interface LoadedKindgiConfig {
  config: KindgiConfig;
  location: KindgiConfigLocation;
}

/** Options of `loadKindgiConfig`. */
export interface LoadKindgiConfigOptions {
  /** A config file to read instead of looking one up at the pack root. */
  configPath?: string;
}

/**
 * Loads and checks a pack's config: `pack.id` / `pack.version`, `language`, `discovery` and the declared
 * `env`. Never throws: `config-not-found`, `config-invalid` (a JSON config next to another one) or
 * `config-parse-failed` with the cause in the message.
 */
export async function loadKindgiConfig(
  packDir: string,
  options: LoadKindgiConfigOptions = {},
): Promise<Result<KindgiConfig, IndexerError>> {
  const loaded = await readKindgiConfig(packDir, options);
  return loaded.kind === 'ok' ? ok(loaded.value.config) : loaded;
}

/** `loadKindgiConfig` that also says which file it read. Never throws. */
export async function readKindgiConfig(
  packDir: string,
  options: LoadKindgiConfigOptions = {},
): Promise<Result<LoadedKindgiConfig, IndexerError>> {
  const located = await locate(resolve(packDir), options.configPath);
  if (located.kind === 'err') return located;
  const location = located.value;
  const name = basename(location.path);
  let raw: unknown;
  try {
    raw = await readRaw(location);
  } catch (cause) {
    return err(
      indexerError('config-parse-failed', `${name}: could not be read: ${describeThrown(cause)}`, location.path),
    );
  }
  const checked = checkConfig(raw, location);
  if (checked.kind === 'err') {
    return err(indexerError('config-parse-failed', `${name}: ${checked.error}`, location.path));
  }
  return ok({ config: checked.value, location });
}

/** Which indexer reads the pack and which pack service runs it. */
export function packLanguage(config: Pick<KindgiConfig, 'language'>): PackLanguage {
  return config.language ?? 'node';
}

async function locate(
  packDir: string,
  configPath: string | undefined,
): Promise<Result<KindgiConfigLocation, IndexerError>> {
  if (configPath !== undefined) {
    const path = resolve(packDir, configPath);
    const exists = await stat(path).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!exists) return err(indexerError('config-not-found', `Config file ${path} does not exist`, path));
    return ok({ path, format: configFormatOf(path) });
  }
  const found = await findAllKindgiConfigs(packDir);
  const first = found[0];
  if (!first) {
    return err(
      indexerError(
        'config-not-found',
        `No pack config in ${packDir}: expected one of ${KINDGI_CONFIG_FILENAMES.join(', ')}, kindgi.config.json (Java/Scala) or a pyproject.toml with a [tool.kindgi] table (Python)`,
      ),
    );
  }
  const json = found.find((entry) => entry.format === 'json');
  if (json && found.length > 1) {
    const others = found.filter((entry) => entry !== json).map((entry) => basename(entry.path));
    return err(
      indexerError(
        'config-invalid',
        `kindgi.config.json sits next to ${others.join(', ')}: a pack has exactly one config; remove one of them`,
        json.path,
      ),
    );
  }
  return ok(first);
}

async function readRaw(location: KindgiConfigLocation): Promise<unknown> {
  if (location.format === 'json') return JSON.parse(await readFile(location.path, 'utf8')) as unknown;
  if (location.format === 'pyproject') {
    const found = await readPyprojectTable(location.path);
    if (!found) throw new Error('has no [tool.kindgi] table');
    const table: Record<string, unknown> = { language: 'python', ...found.table };
    const pack = table.pack as Record<string, unknown> | undefined;
    // A Python pack usually versions itself in [project]; [tool.kindgi.pack] may leave the version out.
    if (pack && typeof pack === 'object' && pack.version === undefined && typeof found.project.version === 'string') {
      table.pack = { ...pack, version: found.project.version };
    }
    return table;
  }
  const namespace = await sharedReloadingModuleLoader().load(location.path);
  if (!('default' in namespace) || namespace.default === undefined) {
    throw new Error('has no default export: write `export default defineConfig({ pack: { id, version } })`');
  }
  return namespace.default;
}

function checkConfig(raw: unknown, location: KindgiConfigLocation): Result<KindgiConfig, string> {
  let value = raw;
  if (isResult(value)) {
    if (value.kind === 'err') return err(`defineConfig failed: ${errorText(value.error)}`);
    value = value.value;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return err('the config must be an object with `pack: { id, version }`');
  }
  const config = { ...(value as Record<string, unknown>) };
  const pack = config.pack as Record<string, unknown> | undefined;
  if (typeof pack !== 'object' || pack === null || Array.isArray(pack)) {
    return err('`pack` must be an object with `id` and `version`');
  }
  if (typeof pack.id !== 'string' || pack.id.trim() === '') return err('`pack.id` must be a non-empty string');
  if (typeof pack.version !== 'string' || pack.version.trim() === '') {
    return err('`pack.version` must be a non-empty string');
  }
  const language = config.language;
  if (language !== undefined && !LANGUAGES.includes(language as PackLanguage)) {
    return err(`\`language\` must be one of ${LANGUAGES.join(', ')}, got ${JSON.stringify(language)}`);
  }
  if (location.format === 'json' && language !== 'java' && language !== 'scala') {
    return err('kindgi.config.json is the config of Java and Scala packs: it must say "language": "java" or "scala"');
  }
  const discovery = checkDiscovery(config.discovery);
  if (discovery !== undefined) return err(discovery);
  if (config.env !== undefined) {
    const env = validatePackEnvDeclaration(config.env);
    if (env.kind === 'err') return err(env.error);
    config.env = env.value;
  }
  return ok(config as KindgiConfig);
}

function checkDiscovery(discovery: unknown): string | undefined {
  if (discovery === undefined) return undefined;
  if (typeof discovery !== 'object' || discovery === null || Array.isArray(discovery)) {
    return '`discovery` must be an object of glob lists keyed by tools, guardrails, agents, flows';
  }
  for (const [key, patterns] of Object.entries(discovery)) {
    if (!(PRIMITIVE_KINDS as readonly string[]).includes(key)) {
      return `\`discovery\` takes only ${PRIMITIVE_KINDS.join(', ')}, not \`${key}\``;
    }
    if (patterns === undefined) continue;
    if (!Array.isArray(patterns) || patterns.some((p) => typeof p !== 'string' || p === '')) {
      return `\`discovery.${key}\` must be a list of glob patterns`;
    }
  }
  return undefined;
}
