/** The four kinds of primitive a pack ships, in index order. */
export const PRIMITIVE_KINDS = ['tools', 'guardrails', 'agents', 'flows'] as const;

/** One of the index's four lists (`tools`, `guardrails`, `agents`, `flows`). */
export type PrimitiveFolder = (typeof PRIMITIVE_KINDS)[number];

/** The language a pack is written in: it decides which indexer reads it and which pack service runs it. */
export type PackLanguage = 'node' | 'python' | 'java' | 'scala';

/** Where each kind of primitive is looked for: fast-glob patterns relative to the pack root. */
export type DiscoveryPatterns = Record<PrimitiveFolder, string[]>;

/** Module configs looked up at the pack root, in this order (then `kindgi.config.json`, then `pyproject.toml`). */
export const KINDGI_CONFIG_FILENAMES = [
  'kindgi.config.ts',
  'kindgi.config.mts',
  'kindgi.config.mjs',
  'kindgi.config.js',
  'kindgi.config.cjs',
] as const;

/** The config of a Java or Scala pack. */
export const KINDGI_JSON_CONFIG_FILENAME = 'kindgi.config.json';

/** A Python pack's config lives in this file's `[tool.kindgi]` table. */
export const PYPROJECT_FILENAME = 'pyproject.toml';

function perFolder(pattern: (folder: PrimitiveFolder) => string): Readonly<DiscoveryPatterns> {
  return Object.freeze({
    tools: [pattern('tools')],
    guardrails: [pattern('guardrails')],
    agents: [pattern('agents')],
    flows: [pattern('flows')],
  });
}

/** Discovery for a Node pack: `.ts`, `.js` and `.mjs` files under each kind's folder. */
export const DEFAULT_DISCOVERY = perFolder((folder) => `${folder}/**/*.{ts,js,mjs}`);

/** Discovery for a Python pack. */
export const DEFAULT_PYTHON_DISCOVERY = perFolder((folder) => `${folder}/**/*.py`);

/** Discovery for a Java pack (Maven layout; the kind is a package segment). */
export const DEFAULT_JAVA_DISCOVERY = perFolder((folder) => `src/main/java/**/${folder}/**/*.java`);

/** Discovery for a Scala pack (sbt/Maven layout). */
export const DEFAULT_SCALA_DISCOVERY = perFolder((folder) => `src/main/scala/**/${folder}/**/*.scala`);

/**
 * The ids of the built-in checks, which the runtime evaluates itself (defined once, in `@kindgi/protocol`). A
 * pack may name one as its guardrail's `check`; it may not ship its own implementation under one.
 */
export { RESERVED_CHECK_IDS } from '@kindgi/protocol';

/** Files never indexed, whatever the patterns say: dependencies, dot entries, tests, type declarations. */
export const DISCOVERY_IGNORE = [
  '**/node_modules/**',
  '**/*.{test,spec}.{ts,js,mjs,cjs}',
  '**/*.d.{ts,mts,cts}',
] as const;

/** The index file written when no output path is given, relative to the pack root. */
export const DEFAULT_OUTPUT_PATH = 'dist/index.json';
