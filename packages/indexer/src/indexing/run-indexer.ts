import { resolve } from 'node:path';
import {
  canonicalJson,
  compareCodeUnits,
  describeThrown,
  err,
  INDEX_ENVELOPE_VERSION,
  ok,
  type PackIndex,
  type Result,
  ValidatorCache,
} from '@kindgi/protocol';
import { type BundleMap, loadBundleMap } from '../build/bundle-map.js';
import { languageMismatchMessage } from '../config/language-mismatch.js';
import { packLanguage, readKindgiConfig } from '../config/load.js';
import { DEFAULT_OUTPUT_PATH, PRIMITIVE_KINDS, type PrimitiveFolder } from '../constants.js';
import { type IndexerError, type IndexerFileError, type IndexerWarning, indexerError } from '../errors.js';
import { nextArtifactVersion } from './artifact-version.js';
import { writeFileAtomic } from './atomic-write.js';
import { classifyPaths, discoverFiles, resolveDiscovery } from './discovery.js';
import { type IndexedFile, indexFile } from './index-file.js';
import { importAll, sharedReloadingModuleLoader } from './module-loader.js';

let validatorCache: ValidatorCache | undefined;

/**
 * The process-wide validator cache (bounded, least recently used dropped): a long-running process that
 * re-indexes on every save (a watched pack) compiles only the schemas that changed, and sets Ajv up once.
 */
function sharedValidators(): ValidatorCache {
  validatorCache ??= new ValidatorCache();
  return validatorCache;
}

/** What to index and where to write it. */
export interface RunIndexerOptions {
  /** The pack root: discovery patterns and module paths are relative to it. */
  packDir: string;
  /** A config file to read instead of looking one up at the pack root. */
  configPath?: string;
  /** Where to write `index.json`. Default `<packDir>/dist/index.json`. */
  outputPath?: string;
  /** Index a build: source path → bundle path (or a JSON file of it, relative to the working directory). */
  bundleMap?: string | BundleMap;
  /** What the bundle paths are relative to. Default `packDir`. */
  moduleRoot?: string;
  /** Pin the artifact version. Default `YYYYMMDD.N` (UTC), N counting up from the same day's index. */
  artifactVersion?: string;
  /** Pin the publication time (any ISO 8601 time; written with milliseconds). Default: now. */
  publishedAt?: string;
}

/** What an indexing run wrote and what it found wrong. */
export interface IndexerReport {
  /** The absolute path of the index written. */
  outputPath: string;
  counts: Record<PrimitiveFolder, number>;
  warnings: IndexerWarning[];
}

function checkPublishedAt(value: string | undefined): Result<Date, IndexerError> {
  if (value === undefined) return ok(new Date());
  const date = new Date(value);
  const looksIso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value);
  if (!looksIso || Number.isNaN(date.getTime())) {
    return err(
      indexerError(
        'options-invalid',
        `publishedAt must be an ISO 8601 time such as 2026-09-20T14:32:07.104Z, got "${value}"`,
      ),
    );
  }
  return ok(date);
}

/**
 * Indexes a pack: loads its config, discovers and imports its files, and writes `index.json` atomically
 * with sorted lists and keys. Fails loud: when any discovered file fails, the error lists every failing
 * file (`fileErrors`) and nothing is written, so a previous index stays as it was. Never throws.
 */
export async function runIndexer(options: RunIndexerOptions): Promise<Result<IndexerReport, IndexerError>> {
  try {
    return await indexPack(options);
  } catch (cause) {
    // Every expected failure is a typed error above; this is the guarantee for the unexpected one.
    return err(indexerError('output-write-failed', `indexing stopped unexpectedly: ${describeThrown(cause)}`));
  }
}

async function indexPack(options: RunIndexerOptions): Promise<Result<IndexerReport, IndexerError>> {
  const packDir = resolve(options.packDir);
  const publishedAt = checkPublishedAt(options.publishedAt);
  if (publishedAt.kind === 'err') return publishedAt;
  if (options.artifactVersion !== undefined && !/^\S+$/.test(options.artifactVersion)) {
    return err(
      indexerError(
        'options-invalid',
        `artifactVersion must be a non-empty string without spaces, got "${options.artifactVersion}"`,
      ),
    );
  }
  const loaded = await readKindgiConfig(
    packDir,
    options.configPath === undefined ? {} : { configPath: options.configPath },
  );
  if (loaded.kind === 'err') return loaded;
  const { config, location } = loaded.value;
  const language = packLanguage(config);
  if (language !== 'node') {
    return err(indexerError('language-mismatch', languageMismatchMessage(language, location.path), location.path));
  }
  const patterns = resolveDiscovery(config.discovery, language);
  let bundleMap: BundleMap | undefined;
  if (options.bundleMap !== undefined) {
    const map = await loadBundleMap(options.bundleMap, process.cwd());
    if (map.kind === 'err') return err(indexerError('options-invalid', map.error));
    bundleMap = map.value;
  }
  const files = bundleMap ? classifyPaths(Object.keys(bundleMap), patterns) : await discoverFiles(packDir, patterns);
  if (files.length === 0) {
    const where = bundleMap ? 'no source path of the bundle map' : `no file under ${packDir}`;
    const all = PRIMITIVE_KINDS.map((kind) => `${kind}: ${patterns[kind].join(', ')}`).join('; ');
    return err(
      indexerError('discovery-empty', `Discovery found nothing to index: ${where} matches the patterns (${all})`),
    );
  }
  const moduleRoot = resolve(options.moduleRoot ?? packDir);
  const loader = sharedReloadingModuleLoader();
  const validators = sharedValidators();
  const fileErrors: IndexerFileError[] = [];
  const indexed: { file: string; result: IndexedFile }[] = [];
  const targets = files.map((file) => {
    const bundle = bundleMap?.[file.path];
    return bundle
      ? { absolutePath: resolve(moduleRoot, bundle), bundle: true }
      : { absolutePath: resolve(packDir, file.path), bundle: false };
  });
  const imported = await importAll(
    targets.map((t) => t.absolutePath),
    loader,
  );
  for (const [i, file] of files.entries()) {
    const ctx = { modulePath: file.path, packId: config.pack.id, packVersion: config.pack.version, validators };
    const result = indexFile(file, targets[i]!, imported[i]!, ctx);
    if (result.kind === 'err') fileErrors.push(result.error);
    else indexed.push({ file: file.path, result: result.value });
  }
  const lists = collectEntries(indexed, fileErrors);
  if (fileErrors.length > 0) return err(filesFailed(fileErrors));
  const warnings = checkIdWarnings(indexed, config.pack.id);
  const outputPath = resolve(packDir, options.outputPath ?? DEFAULT_OUTPUT_PATH);
  const artifactVersion = options.artifactVersion ?? (await nextArtifactVersion(outputPath, publishedAt.value));
  const index: PackIndex = {
    v: INDEX_ENVELOPE_VERSION,
    packId: config.pack.id,
    packVersion: config.pack.version,
    artifactVersion,
    publishedAt: publishedAt.value.toISOString(),
    ...lists,
  };
  const env = config.env;
  if (env && ((env.required?.length ?? 0) > 0 || (env.optional?.length ?? 0) > 0)) {
    index.env = { required: env.required ?? [], optional: env.optional ?? [] };
  }
  try {
    await writeFileAtomic(outputPath, canonicalJson(index));
  } catch (cause) {
    return err(
      indexerError('output-write-failed', `Could not write ${outputPath}: ${describeThrown(cause)}`, outputPath),
    );
  }
  const counts = {
    tools: lists.tools.length,
    guardrails: lists.guardrails.length,
    agents: lists.agents.length,
    flows: lists.flows.length,
  };
  return ok({ outputPath, counts, warnings });
}

function filesFailed(fileErrors: IndexerFileError[]): IndexerError {
  const sorted = [...fileErrors].sort((a, b) => compareCodeUnits(a.file, b.file));
  const first = sorted[0]!;
  const list = sorted.map((failure) => `${failure.file} (${failure.code})`).join(', ');
  const message = `${sorted.length} file(s) could not be indexed, so no index was written: ${list}`;
  return { code: first.code, message, file: first.file, fileErrors: sorted };
}

type Lists = Pick<PackIndex, PrimitiveFolder>;

function collectEntries(indexed: { file: string; result: IndexedFile }[], fileErrors: IndexerFileError[]): Lists {
  const lists: Lists = { tools: [], guardrails: [], agents: [], flows: [] };
  const firstFile = new Map<string, string>();
  for (const { file, result } of indexed) {
    const key = `${result.kind}\u0000${result.entry.id}`;
    const earlier = firstFile.get(key);
    if (earlier !== undefined) {
      // Files come in path order, so which one is kept does not depend on the filesystem.
      const noun = result.kind.slice(0, -1);
      fileErrors.push({
        code: 'manifest-validation-failed',
        file,
        message: `${file}: ${noun} id "${result.entry.id}" is already defined by ${earlier}; the first is kept`,
      });
      continue;
    }
    firstFile.set(key, file);
    (lists[result.kind] as { id: string }[]).push(result.entry);
  }
  for (const kind of PRIMITIVE_KINDS) (lists[kind] as { id: string }[]).sort((a, b) => compareCodeUnits(a.id, b.id));
  return lists;
}

function checkIdWarnings(indexed: { file: string; result: IndexedFile }[], packId: string): IndexerWarning[] {
  const warnings: IndexerWarning[] = [];
  for (const { file, result } of indexed) {
    if (result.kind !== 'guardrails') continue;
    for (const checkId of result.shippedCheckIds) {
      if (checkId.startsWith(`${packId}.`)) continue;
      warnings.push({
        code: 'check-id-unprefixed',
        file,
        checkId,
        message: `${file}: check "${checkId}" does not start with the pack id "${packId}."; packs in a tenant share one space of check names, so name it "${packId}.checks.<name>"`,
      });
    }
  }
  return warnings;
}
