import { appendFileSync, readFileSync } from 'node:fs';

// Appends its tag to the file named by `path` and answers every tag written there so far, so a test can
// tell exactly which calls reached a handler (a call the front dropped must never appear).
export default async function count(input) {
  appendFileSync(input.path, `${input.tag}\n`);
  return { runs: readFileSync(input.path, 'utf8').split('\n').filter(Boolean), pid: process.pid };
}
