export {
  type CommandArgs,
  type CommandArgsSpec,
  type OptionSpec,
  type OptionSpecs,
  type OptionValues,
  type ParsedCommandArgs,
  parseCommandArgs,
  usageError,
} from './cli/args.js';
export { type CliCommand, type CliIo, EXIT, type ExitCode } from './cli/command.js';
export { type CliFailure, type OutputMode, printFailure, printProgress, printResult } from './cli/output.js';
export { processIo, runCli } from './cli/run-cli.js';
