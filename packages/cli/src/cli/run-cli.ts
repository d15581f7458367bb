import { messageOf } from '@kindgi/protocol';
import { COMMANDS } from '../commands/index.js';
import { type CliIo, EXIT } from './command.js';
import { cliVersion } from './version.js';

function overview(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  const lines = COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `Usage: kindgi <command> [options]

The Kindgi pack author's command line.

Commands:
${lines.join('\n')}

Every command takes --help, --version and --json. Exit codes: 0 ok, 1 failed, 2 bad arguments.
`;
}

/** Runs `kindgi <argv>`: picks the command and hands it the rest; the exit code is what it returns. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    io.stdout(overview());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${cliVersion()}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) {
    io.stderr(`kindgi: unknown command "${name}"\n\n${overview()}`);
    return EXIT.usage;
  }
  try {
    return await command.run(rest, io);
  } catch (cause) {
    // A bug, not a user's input: say so plainly rather than print a stack to a pack author.
    io.stderr(`kindgi ${name}: internal error: ${messageOf(cause)}\n`);
    return EXIT.failed;
  }
}

/** The process's own streams, environment and working directory. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}
