/** Where a command writes: stdout for results, stderr for problems and progress. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The process's stdin (a secret's value; absent in tests that give none). */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  /** The environment the command reads (`KINDGI_TOKEN`, `KINDGI_CLI_SOURCE`, ...): `process.env` by default. */
  env: NodeJS.ProcessEnv;
  /** The working directory paths resolve against. */
  cwd: string;
}

/** The exit codes every command uses (docs/cli.md). */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * One `kindgi` subcommand. `run` gets the arguments after the command's name and returns the exit code;
 * it never throws for anything a user can cause (bad input is a message and exit 1 or 2).
 */
export interface CliCommand {
  readonly name: string;
  /** One line for `kindgi --help`. */
  readonly summary: string;
  /** The full `kindgi <name> --help` text. */
  readonly usage: string;
  run(argv: readonly string[], io: CliIo): Promise<number>;
}
