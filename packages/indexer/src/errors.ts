/** Failures of one discovered file. Any of them fails the run: no index is written. */
export type IndexerFileErrorCode =
  | 'file-import-failed'
  | 'no-default-export'
  | 'kind-mismatch'
  | 'ambiguous-kind'
  | 'zod-conversion-failed'
  | 'manifest-validation-failed'
  | 'reserved-check-id'
  | 'secret-name-invalid';

/**
 * Why `runIndexer` wrote nothing: a pack-level failure, or (when files failed) the first failing file's
 * code, with every failing file in `fileErrors`.
 */
export type IndexerErrorCode =
  | 'config-not-found'
  | 'config-parse-failed'
  | 'config-invalid'
  | 'discovery-empty'
  | 'output-write-failed'
  | 'language-mismatch'
  | 'options-invalid'
  | IndexerFileErrorCode;

/** Every indexer error code, for callers that switch on them. */
export const INDEXER_ERROR_CODES: readonly IndexerErrorCode[] = [
  'config-not-found',
  'config-parse-failed',
  'config-invalid',
  'discovery-empty',
  'file-import-failed',
  'no-default-export',
  'kind-mismatch',
  'ambiguous-kind',
  'zod-conversion-failed',
  'manifest-validation-failed',
  'output-write-failed',
  'language-mismatch',
  'reserved-check-id',
  'secret-name-invalid',
  'options-invalid',
];

/** Why `runIndexer` (or `loadKindgiConfig`) wrote nothing. */
export interface IndexerError {
  code: IndexerErrorCode;
  /** One line naming the file and the cause, fit for a build log. */
  message: string;
  /** The file concerned (absolute for configs and outputs, pack-relative for a discovered file), when there is one. */
  file?: string;
  /** Every discovered file that failed, in path order, when files failed (the message lists them too). */
  fileErrors?: IndexerFileError[];
}

/** A discovered file that could not be indexed. */
export interface IndexerFileError {
  code: IndexerFileErrorCode;
  /** The file's path relative to the pack root (the source path in bundle mode), forward slashes. */
  file: string;
  message: string;
}

/** Something the pack should change that does not stop the build. */
export interface IndexerWarning {
  code: 'check-id-unprefixed';
  file: string;
  message: string;
  checkId: string;
}

/** Builds an `IndexerError`. */
export function indexerError(code: IndexerErrorCode, message: string, file?: string): IndexerError {
  return file === undefined ? { code, message } : { code, message, file };
}

/** Builds a file error. */
export function fileError(code: IndexerFileErrorCode, file: string, message: string): IndexerFileError {
  return { code, file, message: `${file}: ${message}` };
}
