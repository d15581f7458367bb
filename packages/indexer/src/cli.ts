import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type RunIndexerOptions, runIndexer } from './run-indexer.js';

/** Where the command writes: stdout for results, stderr for problems. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const USAGE = `Usage: kindgi-index --pack-dir <path> [options]

Writes a Node pack's index.json: the tools, guardrails, agents and flows its pack service serves.

Options:
  --pack-dir <path>          the pack root (required)
  --config <path>            the pack config (default: looked up at the pack root)
  --output <path>            where to write the index (default: <pack-dir>/dist/index.json)
  --bundle-map <path>        index a build: JSON object of source path -> bundle path
  --module-root <path>       what the bundle paths are relative to (default: --pack-dir)
  --artifact-version <str>   pin the artifact version (default: YYYYMMDD.N, UTC)
  --published-at <iso>       pin the publication time (default: now; SOURCE_DATE_EPOCH if set)
  --strict                   exit 1 when any file could not be indexed
  --json                     print the report (or the error) as JSON on stdout
  --help                     print this help
  --version                  print the indexer's version

Exit codes: 0 indexed, 1 indexing failed (or --strict with file errors), 2 bad arguments.
`;

function packageVersion(): string {
  try {
    const url = new URL('../package.json', import.meta.url);
    return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function publishedAtFromEnv(): string | undefined {
  // Reproducible-builds convention: seconds since the epoch of the source's last change.
  const epoch = process.env.SOURCE_DATE_EPOCH;
  if (epoch === undefined || !/^\d+$/.test(epoch)) return undefined;
  return new Date(Number(epoch) * 1000).toISOString();
}

/** The `kindgi-index` command. Resolves to the exit code; never throws. */
export async function main(argv: readonly string[], io: CliIo = defaultIo()): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        'pack-dir': { type: 'string' },
        config: { type: 'string' },
        output: { type: 'string' },
        'bundle-map': { type: 'string' },
        'module-root': { type: 'string' },
        'artifact-version': { type: 'string' },
        'published-at': { type: 'string' },
        strict: { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean' },
        version: { type: 'boolean' },
      },
    }));
  } catch (cause) {
    io.stderr(`kindgi-index: ${cause instanceof Error ? cause.message : String(cause)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (values.version) {
    io.stdout(`${packageVersion()}\n`);
    return 0;
  }
  const packDir = values['pack-dir'];
  if (typeof packDir !== 'string' || packDir === '') {
    io.stderr(`kindgi-index: --pack-dir is required\n\n${USAGE}`);
    return 2;
  }
  if (values['module-root'] !== undefined && values['bundle-map'] === undefined) {
    io.stderr('kindgi-index: --module-root only applies with --bundle-map\n');
    return 2;
  }
  const options: RunIndexerOptions = { packDir };
  const set = <K extends keyof RunIndexerOptions>(key: K, value: string | boolean | undefined) => {
    if (typeof value === 'string') options[key] = value as RunIndexerOptions[K];
  };
  set('configPath', values.config);
  set('outputPath', values.output);
  set('bundleMap', values['bundle-map']);
  set('moduleRoot', values['module-root']);
  set('artifactVersion', values['artifact-version']);
  set('publishedAt', values['published-at'] ?? publishedAtFromEnv());
  const outcome = await runIndexer(options);
  if (outcome.kind === 'err') {
    if (values.json) io.stdout(`${JSON.stringify({ ok: false, error: outcome.error }, null, 2)}\n`);
    io.stderr(`kindgi-index: ${outcome.error.code}: ${outcome.error.message}\n`);
    return outcome.error.code === 'options-invalid' ? 2 : 1;
  }
  const report = outcome.value;
  if (values.json) io.stdout(`${JSON.stringify({ ok: true, ...report }, null, 2)}\n`);
  for (const warning of report.warnings) io.stderr(`kindgi-index: warning ${warning.code}: ${warning.message}\n`);
  for (const failure of report.fileErrors) io.stderr(`kindgi-index: ${failure.code}: ${failure.message}\n`);
  const { tools, guardrails, agents, flows } = report.counts;
  if (!values.json) {
    io.stdout(
      `Indexed ${tools} tools, ${guardrails} guardrails, ${agents} agents, ${flows} flows into ${report.outputPath}\n`,
    );
  }
  if (report.fileErrors.length > 0) {
    const left = `${report.fileErrors.length} file(s) left out of the index`;
    io.stderr(values.strict ? `kindgi-index: ${left} (--strict)\n` : `kindgi-index: ${left}\n`);
    if (values.strict) return 1;
  }
  return 0;
}

function defaultIo(): CliIo {
  return { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) };
}
