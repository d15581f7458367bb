import { parseCommandArgs } from '../cli/args.js';
import type { CliCommand } from '../cli/command.js';
import { printFailure, printProgress, printResult } from '../cli/output.js';
import { indexPack, type PackIndexReport } from '../indexing/index-pack.js';

const USAGE = `Usage: kindgi index [--pack-dir .] [--output PATH] [--json]

Writes the pack's index.json (its tools, guardrails, agents and flows, as the pack service and the runtime
read them) with the indexer of the pack's language: TypeScript packs with kindgi-index, Java packs
(kindgi.config.json says "language": "java") compiled with Maven (./mvnw when present) and indexed by the
Java SDK, as kindgi dev and the server do. Any failing file fails the run, and the previous index is kept.

Options:
  --output PATH   where to write it (default dist/index.json; Java: target/index.json), relative to the pack
  --pack-dir DIR  the pack's folder (default .)
  --json          print {language, outputPath, counts, warnings} as one JSON document
  -h, --help      this text
  --version       the CLI's version

Exit codes: 0 indexed, 1 a file (or the config, or the build) failed, 2 bad arguments.
`;

const OPTIONS = { output: { type: 'string', short: 'o' } } as const;
const SPEC = { name: 'index', usage: USAGE, options: OPTIONS } as const;

function summary(report: PackIndexReport): string {
  const { tools, guardrails, agents, flows } = report.counts;
  return `Indexed ${tools} tools, ${guardrails} guardrails, ${agents} agents, ${flows} flows into ${report.outputPath}`;
}

/** `kindgi index`: docs/cli.md, "kindgi index". */
export const indexCommand: CliCommand = {
  name: 'index',
  summary: "write the pack's index.json with its language's indexer",
  usage: USAGE,
  async run(argv, io) {
    const parsed = parseCommandArgs(argv, io, SPEC);
    if (parsed.kind === 'exit') return parsed.code;
    const { values, json, packDir } = parsed.args;
    const mode = { command: 'index', json };
    const report = await indexPack(packDir, values.output);
    if (report.kind === 'err') {
      const problems = (report.error.details?.problems ?? []) as { message: string }[];
      for (const problem of problems) printProgress(io, `  ${problem.message}`);
      return printFailure(io, mode, report.error);
    }
    for (const warning of report.value.warnings) printProgress(io, `warning ${warning.code}: ${warning.message}`);
    return printResult(io, mode, report.value, () => summary(report.value));
  },
};
