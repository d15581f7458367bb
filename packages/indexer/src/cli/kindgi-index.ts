import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type RunIndexerOptions, runIndexer } from '../indexing/run-indexer.js';
import { type CliIo, parseCommandLine, processIo } from './args.js';

export type { CliIo } from './args.js';

const USAGE = `Usage: kindgi-index --pack-dir <path> [options]

Writes a Node pack's index.json: the tools, guardrails, agents and flows its pack service serves.
Path options resolve against the working directory.

Options:
  --pack-dir <path>          the pack root (required)
  --config <path>            the pack config (default: looked up at the pack root)
  --output <path>            where to write the index (default: <pack-dir>/dist/index.json)
  --bundle-map <path>        index a build: JSON object of source path -> bundle path
  --module-root <path>       what the bundle paths are relative to (default: --pack-dir)
  --artifact-version <str>   pin the artifact version (default: YYYYMMDD.N, UTC)
  --published-at <iso>       pin the publication time (default: now; SOURCE_DATE_EPOCH if set)
  --json                     print the report (or the error) as JSON on stdout
  --strict                   accepted for older scripts: every run is strict
  -h, --help                 print this help
  --version                  print the indexer's version

Exit codes: 0 indexed, 1 indexing failed (any file that fails: nothing is written), 2 bad arguments.
`;

// Replaced at build time in the self-contained bundle, which has no package.json beside it.
declare const __KINDGI_VERSION__: string | undefined;

/** The indexer's version (its package's, or the one the bundle was built with). */
export function indexerVersion(): string {
  if (typeof __KINDGI_VERSION__ === 'string') return __KINDGI_VERSION__;
  // The nearest package.json up from this module: the package root from `src/cli/` and from `dist/` alike.
  for (const up of ['../package.json', '../../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      // Not here: one folder further up.
    }
  }
  return 'unknown';
}

function publishedAtFromEnv(): string | undefined {
  // Reproducible-builds convention: seconds since the epoch of the source's last change.
  const epoch = process.env.SOURCE_DATE_EPOCH;
  if (epoch === undefined || !/^\d+$/.test(epoch)) return undefined;
  return new Date(Number(epoch) * 1000).toISOString();
}

/** The `kindgi-index` command. Resolves to the exit code; never throws. */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const line = parseCommandLine<Record<string, string | boolean | undefined>>(
    { name: 'kindgi-index', usage: USAGE, version: indexerVersion },
    argv,
    {
      'pack-dir': { type: 'string' },
      config: { type: 'string' },
      output: { type: 'string' },
      'bundle-map': { type: 'string' },
      'module-root': { type: 'string' },
      'artifact-version': { type: 'string' },
      'published-at': { type: 'string' },
      strict: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    io,
  );
  if (line.kind === 'exit') return line.code;
  const { values, packDir } = line;
  if (values['module-root'] !== undefined && values['bundle-map'] === undefined) {
    io.stderr('kindgi-index: --module-root only applies with --bundle-map\n');
    return 2;
  }
  // Paths on a command line mean what the user's shell means: relative to the working directory.
  const options: RunIndexerOptions = { packDir: resolve(packDir) };
  const set = <K extends keyof RunIndexerOptions>(key: K, value: string | boolean | undefined, path = true) => {
    if (typeof value === 'string') options[key] = (path ? resolve(value) : value) as RunIndexerOptions[K];
  };
  set('configPath', values.config);
  set('outputPath', values.output);
  set('bundleMap', values['bundle-map']);
  set('moduleRoot', values['module-root']);
  set('artifactVersion', values['artifact-version'], false);
  set('publishedAt', values['published-at'] ?? publishedAtFromEnv(), false);
  const outcome = await runIndexer(options);
  if (outcome.kind === 'err') {
    if (values.json) io.stdout(`${JSON.stringify({ ok: false, error: outcome.error }, null, 2)}\n`);
    const failed = outcome.error.fileErrors ?? [];
    for (const failure of failed) io.stderr(`kindgi-index: ${failure.code}: ${failure.message}\n`);
    io.stderr(
      failed.length > 0
        ? `kindgi-index: ${failed.length} file(s) could not be indexed; no index was written\n`
        : `kindgi-index: ${outcome.error.code}: ${outcome.error.message}\n`,
    );
    return outcome.error.code === 'options-invalid' ? 2 : 1;
  }
  const report = outcome.value;
  if (values.json) io.stdout(`${JSON.stringify({ ok: true, ...report }, null, 2)}\n`);
  for (const warning of report.warnings) io.stderr(`kindgi-index: warning ${warning.code}: ${warning.message}\n`);
  const { tools, guardrails, agents, flows } = report.counts;
  if (!values.json) {
    io.stdout(
      `Indexed ${tools} tools, ${guardrails} guardrails, ${agents} agents, ${flows} flows into ${report.outputPath}\n`,
    );
  }
  return 0;
}
