import { setTimeout as wait } from 'node:timers/promises';

// Answers with its input and the process that ran it, so a test can tell which child served a call.
// `delayMs` keeps the call in flight for a while (the load test wants calls overlapping a crash).
export default async function echo(input) {
  if (input.delayMs) await wait(input.delayMs);
  return { message: input.message, pid: process.pid };
}
