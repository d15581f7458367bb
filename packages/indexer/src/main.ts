#!/usr/bin/env node
import { main } from './cli/kindgi-index.js';

// The process entry (`kindgi-index`): exit codes 0 indexed, 1 failed, 2 bad arguments.
process.exitCode = await main(process.argv.slice(2));
