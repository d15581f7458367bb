import { basename, resolve } from 'node:path';
import { parseCommandArgs, usageError } from '../cli/args.js';
import type { CliCommand } from '../cli/command.js';
import { printFailure, printResult } from '../cli/output.js';
import { cliVersion } from '../cli/version.js';
import { type CreatedPack, createPack } from '../init/create-pack.js';
import { packIdProblem } from '../init/pack-id.js';
import { INIT_LANGUAGES, type InitLanguage } from '../init/templates.js';

const USAGE = `Usage: kindgi init [dir] [--language ts|java|python] [--id ID] [--json]

Creates a working pack in dir (default: the current folder), which must be new or empty: a pack config
pinning this CLI's version, one tool with input and output schemas, one guardrail, a unit test that passes
as generated, a .gitignore covering .env*, and the ./kindgiw wrapper (kindgiw.cmd on Windows).

Options:
  --language L  ts (default), java or python (py)
  --id ID       the pack id (default: the folder's name); kebab-case, like "acme" or "acme-legal"
  --json        print {packId, language, dir, files} as one JSON document
  -h, --help    this text
  --version     the CLI's version

Exit codes: 0 created, 1 the folder is not empty (nothing written) or a write failed, 2 bad arguments.
`;

const OPTIONS = { language: { type: 'string', short: 'l' }, id: { type: 'string' } } as const;
const SPEC = { name: 'init', usage: USAGE, options: OPTIONS, positionals: { max: 1 }, packDir: false } as const;

function nextSteps(pack: CreatedPack, shownDir: string): string {
  const install = {
    ts: 'npm install          # @kindgi/sdk, zod, vitest',
    java: './kindgiw --version  # fetches the pinned CLI once',
    python: "python3 -m venv .venv && .venv/bin/pip install -e '.[test]'  # the kindgi SDK, pydantic, pytest",
  }[pack.language];
  const test = { ts: 'npm test', java: 'mvn test             # or ./mvnw test', python: '.venv/bin/pytest' }[
    pack.language
  ];
  return `Created pack "${pack.packId}" (${pack.language}) in ${pack.dir}: ${pack.files.length} files.

Next:
  cd ${shownDir}
  ${install}
  ${test}
  ./kindgiw dev
`;
}

/** `kindgi init`: docs/cli.md, "kindgi init". */
export const initCommand: CliCommand = {
  name: 'init',
  summary: 'create a working pack (TypeScript, Java or Python) in a new folder',
  usage: USAGE,
  async run(argv, io) {
    const parsed = parseCommandArgs(argv, io, SPEC);
    if (parsed.kind === 'exit') return parsed.code;
    const { values, positionals, json } = parsed.args;
    const language = values.language === 'py' ? 'python' : (values.language ?? 'ts');
    if (!(INIT_LANGUAGES as readonly string[]).includes(language)) {
      return usageError(io, SPEC, `unknown language "${language}": use ${INIT_LANGUAGES.join(' or ')}`);
    }
    const shownDir = positionals[0] ?? '.';
    const dir = resolve(io.cwd, shownDir);
    const packId = values.id ?? basename(dir);
    const problem = packIdProblem(packId);
    if (problem !== undefined) {
      const hint = values.id === undefined ? ' (taken from the folder name; give one with --id)' : '';
      return usageError(io, SPEC, `${problem}${hint}`);
    }
    const mode = { command: 'init', json };
    const created = await createPack({ dir, packId, language: language as InitLanguage, cliVersion: cliVersion() });
    if (created.kind === 'err') return printFailure(io, mode, created.error);
    return printResult(io, mode, created.value, () => nextSteps(created.value, shownDir));
  },
};
