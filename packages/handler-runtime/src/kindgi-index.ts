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
