import type { CliCommand } from '../cli/command.js';
import { buildCommand } from './build.js';
import { callCommand } from './call.js';
import { devCommand } from './dev.js';
import { indexCommand } from './index-pack.js';
import { initCommand } from './init.js';
import { secretsCommand } from './secrets.js';

/** Every `kindgi` subcommand, in the order `kindgi --help` lists them. */
export const COMMANDS: readonly CliCommand[] = [
  initCommand,
  devCommand,
  buildCommand,
  callCommand,
  indexCommand,
  secretsCommand,
];
