import type { PackEnvDeclaration } from '@kindgi/protocol';
import type { PackLanguage, PrimitiveFolder } from '../constants.js';

/** A pack's `kindgi.config.*` (or `kindgi.config.json`, or `pyproject.toml` `[tool.kindgi]`), as loaded. */
export interface KindgiConfig {
  pack: { id: string; version: string; [extra: string]: unknown };
  /** Absent means `node`. */
  language?: PackLanguage;
  /** Patterns per kind, replacing that kind's default patterns. */
  discovery?: Partial<Record<PrimitiveFolder, string[]>>;
  /** The environment variables the pack's code reads; both lists sorted once loaded. */
  env?: PackEnvDeclaration;
  /** Image build settings: data for `kindgi build`, not read by the indexer. */
  image?: unknown;
  [extra: string]: unknown;
}

/** Where a pack's config is, and how it is read. */
export interface KindgiConfigLocation {
  /** Absolute path. */
  path: string;
  /** `module`: a `kindgi.config.{ts,mts,mjs,js,cjs}`; `json`: Java/Scala; `pyproject`: Python. */
  format: 'module' | 'json' | 'pyproject';
}
