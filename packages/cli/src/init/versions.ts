/**
 * The versions a generated TypeScript pack's package.json pins for its own tools: the ones this
 * repository builds and tests with (root package.json and packages/example-pack), so a new pack
 * starts on a tested set. `@kindgi/sdk` and `@kindgi/cli` are released together at the CLI's version.
 */
export const TS_PACK_DEPENDENCIES = {
  ZOD_VERSION: '4.6.7',
  VITEST_VERSION: '3.2.7',
  TYPESCRIPT_VERSION: '5.9.3',
  TYPES_NODE_VERSION: '^20.19.0',
} as const;

/** The Java SDK (`com.kindgi:kindgi-pack-parent`) a generated Java pack builds on (sdks/java). */
export const JAVA_SDK_VERSION = '0.1.0';
