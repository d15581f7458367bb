// `@kindgi/indexer/build`: bundling a pack for an image. Kept off the main entry, so the indexer (and its
// self-contained bundle) never loads esbuild.
export {
  BUNDLE_MAP_FILENAME,
  BUNDLED_CONFIG_FILENAME,
  type BuildPackOptions,
  buildPack,
  type PackBuildError,
  type PackBuildReport,
} from './build/pack-build.js';
export { packBuildMain } from './cli/kindgi-pack-build.js';
