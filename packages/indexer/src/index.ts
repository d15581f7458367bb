export { INDEX_ENVELOPE_VERSION, validatePackEnvDeclaration } from '@kindgi/protocol';
export { type BundleMap, checkBundleMap } from './build/bundle-map.js';
export { main } from './cli/kindgi-index.js';
export { findKindgiConfig, readPyprojectTable } from './config/find.js';
export {
  type LoadedKindgiConfig,
  type LoadKindgiConfigOptions,
  loadKindgiConfig,
  packLanguage,
  readKindgiConfig,
} from './config/load.js';
export type { KindgiConfig, KindgiConfigLocation } from './config/types.js';
export {
  DEFAULT_DISCOVERY,
  DEFAULT_JAVA_DISCOVERY,
  DEFAULT_OUTPUT_PATH,
  DEFAULT_PYTHON_DISCOVERY,
  DEFAULT_SCALA_DISCOVERY,
  type DiscoveryPatterns,
  KINDGI_CONFIG_FILENAMES,
  KINDGI_JSON_CONFIG_FILENAME,
  type PackLanguage,
  PRIMITIVE_KINDS,
  type PrimitiveFolder,
  RESERVED_CHECK_IDS,
} from './constants.js';
export {
  INDEXER_ERROR_CODES,
  type IndexerError,
  type IndexerErrorCode,
  type IndexerFileError,
  type IndexerFileErrorCode,
  type IndexerWarning,
} from './errors.js';
export { resolveDiscovery } from './indexing/discovery.js';
export { type IndexerReport, type RunIndexerOptions, runIndexer } from './indexing/run-indexer.js';
