import { resolve } from 'node:path';
import { formatLayerList } from '../build/plan.js';
import type { BuildReport } from '../build/run-build.js';
import { parseCommandArgs } from '../cli/args.js';
import type { CliCommand } from '../cli/command.js';
import { printFailure, printProgress, printResult } from '../cli/output.js';

const USAGE = `Usage: kindgi build [--pack-dir .] [--out DIR] [--dry-run] [--json]

Builds a pack's image inputs the way its image builds them. For a TypeScript pack: one bundle per
discovered file (kindgi-pack-build), index.json written by the same kindgi-index.mjs the image's indexer
stage runs, and a multi-stage Containerfile rendered from the config's image section (systemPackages,
buildEnv, secretEnv, baseImage, extensions). A Java pack gets its Containerfile only (Maven build,
Main index, JRE runtime). A Python pack (pyproject.toml [tool.kindgi]) gets index.json, written by
python -m kindgi.pack index as the image's indexer stage runs it, and its Containerfile (a virtualenv
from requirements.txt, hash-pinned, else [project].dependencies; indexer; runtime).

Two builds of the same inputs are byte-identical: SOURCE_DATE_EPOCH pins publishedAt (0 when unset) and
the artifact version is the pack version plus a hash of the bundles (Python: of the build context).

Writes into DIR: Containerfile, Containerfile.dockerignore, index.json and, for a TypeScript pack, pack/
(the bundles, kindgi.config.mjs, bundle-map.json). Build the image from the pack folder:
  docker build -f DIR/Containerfile <pack folder>

Options:
  --pack-dir DIR  the pack's folder (default .)
  --out DIR       the output folder (default <pack-dir>/.kindgi/build)
  --dry-run       print the Containerfile and the layer list; write nothing
  --json          one JSON document on stdout (the report, or {"error": …})
  -h, --help      this text
  --version       the CLI's version

Exit codes: 0 built, 1 the build failed (an invalid image section names the extension), 2 bad arguments.
`;

const OPTIONS = { out: { type: 'string' }, 'dry-run': { type: 'boolean' } } as const;

function summary(report: BuildReport): string {
  if (report.dryRun) return `${report.containerfile}\n${formatLayerList(report.layers)}`;
  return `Built ${report.packId} ${report.packVersion} (${report.language}) into ${report.outDir}: ${report.files.length} files, artifact version ${report.pins.artifactVersion}`;
}

/** `kindgi build`: docs/cli.md, "kindgi build", and docs/pack-image.md. */
export const buildCommand: CliCommand = {
  name: 'build',
  summary: "bundle, index and render the pack's image Containerfile, byte-identically",
  usage: USAGE,
  async run(argv, io) {
    const parsed = parseCommandArgs(argv, io, { name: 'build', usage: USAGE, options: OPTIONS });
    if (parsed.kind === 'exit') return parsed.code;
    const { values, packDir, json } = parsed.args;
    const outDir = values.out === undefined ? resolve(packDir, '.kindgi', 'build') : resolve(io.cwd, values.out);
    const mode = { command: 'build', json };
    // The bundler and indexer load only when `build` runs.
    const { runBuild } = await import('../build/run-build.js');
    const outcome = await runBuild({ packDir, outDir, dryRun: values['dry-run'] === true, env: io.env });
    if (outcome.kind === 'err') return printFailure(io, mode, outcome.error);
    for (const note of outcome.value.notes) printProgress(io, `kindgi build: note: ${note}`);
    return printResult(io, mode, outcome.value, () => summary(outcome.value));
  },
};
