import { existsSync } from 'node:fs';
import { setTimeout as wait } from 'node:timers/promises';

// Stays in flight until the file named by `path` exists (or the call is cancelled), after saying so on
// stdout, so a test can act while a call is known to be running.
export default async function hold(input, ctx) {
  process.stdout.write(`hold: ${input.path}\n`);
  while (!existsSync(input.path)) {
    if (ctx.abortSignal?.aborted) return { released: false, pid: process.pid };
    await wait(10);
  }
  return { released: true, pid: process.pid };
}
