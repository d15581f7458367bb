import { type ParseArgsConfig, parseArgs } from 'node:util';

/** The flags that take a value, and what the value is (for the messages). */
const VALUE_FLAGS = {
  index: 'a path',
  'module-root': 'a directory',
  'bundle-map': 'a path',
  host: 'an address',
  'token-fd': 'a file descriptor number',
} as const;

/** A flag of the pack service's command line that takes a value (`--index`, `--host`, …). */
export type PackServiceFlag = keyof typeof VALUE_FLAGS;

/** What the command line asks before any setting is read: the first of these in it, if any. */
export type CommandLineAsk = { kind: 'help' } | { kind: 'version' } | { kind: 'unknown'; message: string };

/** The command line, read once for the front (`--help`, `--version`, exit 2) and for the settings. */
export interface PackServiceArgv {
  first: CommandLineAsk | undefined;
  /** The last value given for each flag. */
  values: Partial<Record<PackServiceFlag, string>>;
  /** Every problem in the order met: unknown arguments and flags without a value. */
  problems: string[];
}

const OPTIONS: NonNullable<ParseArgsConfig['options']> = {
  ...Object.fromEntries(Object.keys(VALUE_FLAGS).map((name) => [name, { type: 'string' }])),
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
};

function isValueFlag(name: string): name is PackServiceFlag {
  return Object.hasOwn(VALUE_FLAGS, name);
}

/**
 * Reads the pack service's argv with `node:util`'s `parseArgs`, keeping its published rules: `--flag value`
 * or `--flag=value`; a value flag right before another value flag has no value; `-h`/`--help` and
 * `--version` only as written; anything else is an unknown argument, named as given.
 */
export function readPackServiceArgv(argv: readonly string[]): PackServiceArgv {
  const reading: PackServiceArgv = { first: undefined, values: {}, problems: [] };
  let from = 0;
  while (from < argv.length) from = readFrom(argv, from, reading);
  return reading;
}

/** Reads `argv` from `from`; returns where to go on (the end, or a flag taken for a missing value). */
function readFrom(argv: readonly string[], from: number, reading: PackServiceArgv): number {
  const { tokens } = parseArgs({
    args: argv.slice(from),
    options: OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  let reported = -1;
  for (const token of tokens) {
    const at = from + token.index;
    const raw = argv[at] as string;
    if (token.kind === 'option' && isValueFlag(token.name) && token.rawName === `--${token.name}`) {
      const value = token.value;
      const needs = `--${token.name} needs ${VALUE_FLAGS[token.name]}`;
      // parseArgs takes any next argument as the value; a value flag there means this one was given none.
      const next = token.inlineValue === false && value?.startsWith('--') ? value.slice(2) : '';
      if (isValueFlag(next)) {
        reading.problems.push(needs);
        return at + 1;
      }
      if (value === undefined || value.trim() === '') reading.problems.push(needs);
      else reading.values[token.name] = value;
      continue;
    }
    if (at === reported) continue; // One unknown argument even when parseArgs split it (`-hx`).
    reported = at;
    if (raw === '--help' || raw === '-h') reading.first ??= { kind: 'help' };
    else if (raw === '--version') reading.first ??= { kind: 'version' };
    const message = `Unknown argument ${JSON.stringify(raw)}`;
    reading.first ??= { kind: 'unknown', message };
    reading.problems.push(message);
  }
  return argv.length;
}
