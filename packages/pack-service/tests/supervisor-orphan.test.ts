import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { packDir, scratch, serviceCommand, writeIndex } from './supervisor-helpers.js';

const distIndex = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once `pid` has exited, checking every 50 ms; rejects after `limitMs` (a generous bound, not a timing bet). */
async function exitOf(pid: number, limitMs: number): Promise<void> {
  const started = Date.now();
  while (alive(pid)) {
    if (Date.now() - started > limitMs) throw new Error(`process ${pid} is still running after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('a pack service whose supervisor is SIGKILLed drains and exits instead of lingering as an orphan', async () => {
  const space = scratch();
  cleanups.push(space.dispose);
  const indexPath = writeIndex(space.dir, 'orphan.1');
  // A supervisor in a process of its own, so the test can SIGKILL it; it prints the serving child's pid.
  const script = join(space.dir, 'supervisor.mjs');
  writeFileSync(
    script,
    `import { createPackServiceSupervisor } from ${JSON.stringify(distIndex)};
const supervisor = createPackServiceSupervisor({
  command: ${JSON.stringify(serviceCommand())},
  moduleRoot: ${JSON.stringify(packDir)},
  env: () => ({ PATH: process.env.PATH ?? '' }),
  onEvent: (event) => { if (event.kind === 'child-serving') console.log('child ' + event.pid); },
});
await supervisor.listen();
const started = await supervisor.start(${JSON.stringify(indexPath)});
if (started.kind === 'err') { console.log('failed ' + started.error.message); process.exit(1); }
`,
  );
  const parent: ChildProcess = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => parent.kill('SIGKILL'));
  const lines = createInterface({ input: parent.stdout as NodeJS.ReadableStream });
  const [first] = (await once(lines, 'line')) as [string];
  expect(first).toMatch(/^child \d+$/);
  const childPid = Number(first.split(' ')[1]);
  cleanups.push(() => {
    if (alive(childPid)) process.kill(childPid, 'SIGKILL');
  });
  expect(alive(childPid)).toBe(true);

  parent.kill('SIGKILL');
  await once(parent, 'exit');
  await exitOf(childPid, 20_000);
  expect(alive(childPid)).toBe(false);
});
