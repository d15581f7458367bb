import { rmSync } from 'node:fs';
import { benchResultsDir, benchSummary } from './bench.js';

// `pnpm bench` calls this with `--reset` before the benchmarks run (so the summary holds only this run's
// ratios) and without it at the end, to print them.
if (process.argv.includes('--reset')) rmSync(benchResultsDir(), { recursive: true, force: true });
else process.stdout.write(`\nBenchmark ratios (each measured in one run against its baseline):\n\n${benchSummary()}`);
