import type { PackEnvDeclaration } from '@kindgi/protocol';
import { checkImageConfig, type ImageConfig } from './build.js';
import { checkEnvDeclaration } from './env-declaration.js';
import { definedFields, describe, FieldChecker, isPlainObject } from './fields.js';

export const PACK_LANGUAGES = ['node', 'python', 'java', 'scala'] as const;
export type PackLanguage = (typeof PACK_LANGUAGES)[number];
const DISCOVERY_KEYS = ['tools', 'guardrails', 'agents', 'flows'] as const;

/** Where the indexer looks for each kind of primitive (globs relative to the pack root). */
export interface DiscoveryConfig {
  readonly tools?: readonly string[];
  readonly guardrails?: readonly string[];
  readonly agents?: readonly string[];
  readonly flows?: readonly string[];
}

/** A pack's `kindgi.config.ts`. */
export interface KindgiConfig {
  readonly pack: { readonly id: string; readonly version: string };
  /** Default `node`. */
  readonly language?: PackLanguage;
  readonly discovery?: DiscoveryConfig;
  /** The environment variables the pack's code reads; the pack service drops every other one. */
  readonly env?: PackEnvDeclaration;
  readonly image?: ImageConfig;
  /** The `kindgi` CLI version the pack pins (`./kindgiw` runs exactly this one). */
  readonly cli?: string;
}

/** Checks a pack config and returns it frozen. Throws `KindgiDefinitionError` naming the field. */
export function defineConfig<const Config extends KindgiConfig>(config: Config): Config {
  const check: FieldChecker = new FieldChecker('defineConfig');
  const def = check.object(config, 'a pack config');
  if (!isPlainObject(def.pack)) check.fail('pack', `"pack" must be an object {id, version}, got ${describe(def.pack)}`);
  check.packId(def.pack.id, 'pack.id');
  check.nonEmptyString(def.pack.version, 'pack.version');
  if (def.language !== undefined) check.oneOf(def.language, PACK_LANGUAGES, 'language');
  if (def.discovery !== undefined) {
    if (!isPlainObject(def.discovery)) check.fail('discovery', '"discovery" must be an object of glob lists');
    for (const key of Object.keys(def.discovery)) {
      if (!(DISCOVERY_KEYS as readonly string[]).includes(key)) {
        check.fail(`discovery.${key}`, `"discovery" takes only ${DISCOVERY_KEYS.join(', ')}, not "${key}"`);
      }
      check.optionalStringList(def.discovery[key], `discovery.${key}`);
    }
  }
  checkEnvDeclaration(check, def.env);
  checkImageConfig(check, def.image);
  check.optionalString(def.cli, 'cli');
  return Object.freeze(definedFields(def)) as Config;
}
