import { type ParseArgsConfig, parseArgs } from 'node:util';
import { messageOf } from '@kindgi/protocol';

/** Where a command writes: stdout for results, stderr for problems. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** What a command's front half decided: run with these values, or exit now with this code. */
export type CommandLine<V> = { kind: 'run'; values: V; packDir: string } | { kind: 'exit'; code: number };

/**
 * The front every indexer command shares: strict flags (an unknown one exits 2 with the usage),
 * `-h`/`--help` and `--version` on stdout (exit 0), and a required non-empty `--pack-dir`.
 */
export function parseCommandLine<V>(
  command: { name: string; usage: string; version: () => string },
  argv: readonly string[],
  options: NonNullable<ParseArgsConfig['options']>,
  io: CliIo,
): CommandLine<V> {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: { ...options, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } },
    }));
  } catch (cause) {
    io.stderr(`${command.name}: ${messageOf(cause)}\n\n${command.usage}`);
    return { kind: 'exit', code: 2 };
  }
  if (values.help) {
    io.stdout(command.usage);
    return { kind: 'exit', code: 0 };
  }
  if (values.version) {
    io.stdout(`${command.version()}\n`);
    return { kind: 'exit', code: 0 };
  }
  const packDir = values['pack-dir'];
  if (typeof packDir !== 'string' || packDir === '') {
    io.stderr(`${command.name}: --pack-dir is required\n\n${command.usage}`);
    return { kind: 'exit', code: 2 };
  }
  return { kind: 'run', values: values as V, packDir };
}

/** The process's own streams. */
export function processIo(): CliIo {
  return { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) };
}
