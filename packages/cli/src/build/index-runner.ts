import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';

const INDEXER_BUNDLE = join('@kindgi', 'handler-runtime', 'dist', 'kindgi-index.mjs');
const MAX_OUTPUT = 4 * 1024 * 1024;

/**
 * The `kindgi-index.mjs` the image's indexer stage runs: the pack's own install's (what the build stage
 * copies from `node_modules/@kindgi/handler-runtime`), found as Node finds a package, else the copy this
 * CLI depends on.
 */
export function indexerBundle(packDir: string): string {
  for (let dir = packDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', INDEXER_BUNDLE);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) break;
  }
  // The package exports no path to the bundle itself; it sits beside the indexer's process entry folder.
  const main = fileURLToPath(import.meta.resolve('@kindgi/handler-runtime/kindgi-index-main'));
  return join(dirname(dirname(main)), 'kindgi-index.mjs');
}

/**
 * Runs the indexer stage's RUN line in `stageDir` (holding `pack/`), with what the stage's environment
 * holds and nothing else: `SOURCE_DATE_EPOCH`. Writes `stageDir/index.json`.
 */
export function runIndexerStage(
  bundle: string,
  stageDir: string,
  pins: { sourceDateEpoch: string; artifactVersion: string },
): Promise<Result<void, string>> {
  const args = [
    bundle,
    '--pack-dir',
    'pack',
    '--bundle-map',
    'pack/bundle-map.json',
    '--module-root',
    'pack',
    '--output',
    'index.json',
    '--artifact-version',
    pins.artifactVersion,
  ];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: stageDir, env: { SOURCE_DATE_EPOCH: pins.sourceDateEpoch }, maxBuffer: MAX_OUTPUT, encoding: 'utf8' },
      (error, _stdout, stderr) => {
        if (!error) return resolve(ok(undefined));
        resolve(err(stderr.trim() || messageOf(error)));
      },
    );
  });
}
