#!/usr/bin/env node
import { processIo, runCli } from './cli/run-cli.js';

// The process entry (`kindgi`): exit codes 0 ok, 1 failed, 2 bad arguments (docs/cli.md).
process.exitCode = await runCli(process.argv.slice(2), processIo());
