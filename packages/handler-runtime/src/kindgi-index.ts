export {
  findKindgiConfig,
  type IndexerError,
  type IndexerReport,
  loadKindgiConfig,
  main,
  packLanguage,
  type RunIndexerOptions,
  resolveDiscovery,
  runIndexer,
} from '@kindgi/indexer';
export {
  BUNDLE_MAP_FILENAME,
  BUNDLED_CONFIG_FILENAME,
  type BuildPackOptions,
  buildPack,
  type PackBuildError,
  type PackBuildReport,
  packBuildMain,
} from '@kindgi/indexer/build';
