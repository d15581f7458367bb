import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type CliIo, EXIT, type ExitCode } from './command.js';
import { cliVersion } from './version.js';

/** One option of a command, as node:util's parseArgs takes it. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
}

/** A command's own options, by long name. */
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

type ValueOf<T extends OptionSpec> = T['type'] extends 'boolean'
  ? T['multiple'] extends true
    ? boolean[]
    : boolean
  : T['multiple'] extends true
    ? string[]
    : string;

/** The parsed values of a command's own options (absent when not given). */
export type OptionValues<O extends OptionSpecs> = { [K in keyof O]?: ValueOf<O[K]> };

/** What `parseCommandArgs` needs to know about a command. */
export interface CommandArgsSpec<O extends OptionSpecs> {
  /** The command's name, for messages (`kindgi <name>: …`). */
  readonly name: string;
  /** The full `--help` text (printed on stdout for --help, on stderr after a usage error). */
  readonly usage: string;
  readonly options?: O;
  /** How many positional arguments the command takes (default: none). */
  readonly positionals?: { readonly min?: number; readonly max?: number };
  /** Whether the command takes `--pack-dir` (default true). */
  readonly packDir?: boolean;
}

/** A command's arguments once parsed and checked. */
export interface CommandArgs<O extends OptionSpecs> {
  readonly values: OptionValues<O>;
  readonly positionals: readonly string[];
  /** `--json`: stdout carries exactly one JSON document. */
  readonly json: boolean;
  /** `--pack-dir`, absolute (resolved against `io.cwd`; default `.`). */
  readonly packDir: string;
}

/** Either the arguments to run with, or the exit code the command returns right away (help, version, usage). */
export type ParsedCommandArgs<O extends OptionSpecs> =
  | { readonly kind: 'args'; readonly args: CommandArgs<O> }
  | { readonly kind: 'exit'; readonly code: ExitCode };

// Every option value a user types is bounded: a path or a JSON input has no business being larger.
const MAX_ARGUMENT_BYTES = 1024 * 1024;

const COMMON: OptionSpecs = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  json: { type: 'boolean' },
};

const PACK_DIR: OptionSpecs = { 'pack-dir': { type: 'string' } };

/** Writes `kindgi <name>: <message>` and the usage to stderr; returns exit 2 (bad arguments). */
export function usageError(io: CliIo, spec: { name: string; usage: string }, message: string): ExitCode {
  io.stderr(`kindgi ${spec.name}: ${message}\n\n${spec.usage.endsWith('\n') ? spec.usage : `${spec.usage}\n`}`);
  return EXIT.usage;
}

function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  const flags = end === -1 ? argv : argv.slice(0, end);
  return flags.includes('--help') || flags.includes('-h');
}

function checkPositionals(count: number, spec: CommandArgsSpec<OptionSpecs>): string | undefined {
  const min = spec.positionals?.min ?? 0;
  const max = spec.positionals?.max ?? 0;
  if (count < min) return `expected at least ${min} argument${min === 1 ? '' : 's'}, got ${count}`;
  if (count > max) return max === 0 ? 'takes no positional arguments' : `takes at most ${max} argument(s)`;
  return undefined;
}

/**
 * The one argument front of every `kindgi` command: node:util parseArgs in strict mode, plus `--help`/`-h`
 * (usage on stdout, exit 0), `--version`, `--json` and `--pack-dir`. A bad argument is a message and the
 * usage on stderr, exit 2.
 */
export function parseCommandArgs<O extends OptionSpecs>(
  argv: readonly string[],
  io: CliIo,
  spec: CommandArgsSpec<O>,
): ParsedCommandArgs<O> {
  if (asksForHelp(argv)) {
    io.stdout(spec.usage.endsWith('\n') ? spec.usage : `${spec.usage}\n`);
    return { kind: 'exit', code: EXIT.ok };
  }
  const tooLong = argv.find((arg) => Buffer.byteLength(arg) > MAX_ARGUMENT_BYTES);
  if (tooLong !== undefined) {
    return { kind: 'exit', code: usageError(io, spec, `an argument is over ${MAX_ARGUMENT_BYTES} bytes`) };
  }
  const withPackDir = spec.packDir ?? true;
  const options: OptionSpecs = { ...COMMON, ...(withPackDir ? PACK_DIR : {}), ...spec.options };
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
  } catch (cause) {
    return { kind: 'exit', code: usageError(io, spec, (cause as Error).message) };
  }
  if (parsed.values.version === true) {
    io.stdout(`${cliVersion()}\n`);
    return { kind: 'exit', code: EXIT.ok };
  }
  const problem = checkPositionals(parsed.positionals.length, spec as CommandArgsSpec<OptionSpecs>);
  if (problem !== undefined) return { kind: 'exit', code: usageError(io, spec, problem) };
  const packDir = typeof parsed.values['pack-dir'] === 'string' ? parsed.values['pack-dir'] : '.';
  if (packDir === '') return { kind: 'exit', code: usageError(io, spec, '--pack-dir must not be empty') };
  return {
    kind: 'args',
    args: {
      values: parsed.values as OptionValues<O>,
      positionals: parsed.positionals,
      json: parsed.values.json === true,
      packDir: resolve(io.cwd, packDir),
    },
  };
}
