#!/usr/bin/env node
import { packBuildMain } from './cli/kindgi-pack-build.js';

// The process entry (`kindgi-pack-build`): exit codes 0 built, 1 failed, 2 bad arguments.
process.exitCode = await packBuildMain(process.argv.slice(2));
