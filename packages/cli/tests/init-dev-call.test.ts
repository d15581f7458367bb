import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { groupGone } from './dev-harness.js';
import { CLI_MAIN, kindgi, linkWorkspaceDependencies, removeTemps, tempDir } from './helpers.js';

// The pack author's loop as issue 35 states it, through the real bin only: `kindgi init` → `kindgi dev`
// → `kindgi call` → a save → the new code → a syntax error (file:line printed, the old code serving) →
// an `.env` edit (restart, new value) → Ctrl-C (no process left).

/** The generated tool with `from` → `to` swapped in its source. */
function editTool(file: string, from: string, to: string): void {
  const source = readFileSync(file, 'utf8');
  if (!source.includes(from)) throw new Error(`the generated tool no longer contains ${from}`);
  writeFileSync(file, source.replace(from, to));
}

/** Waits for `done` (looking every 100 ms), failing with `what` after `limitMs`. */
async function until(done: () => boolean | Promise<boolean>, what: string, limitMs = 60_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

afterAll(removeTemps);

describe('kindgi init → dev → call', () => {
  it('serves the generated pack, follows saves, survives a syntax error, restarts on .env, stops on SIGINT', async () => {
    const cwd = tempDir('init-dev');
    const created = await kindgi(['init', 'notes', '--language', 'ts'], { cwd });
    expect(created.code, created.stderr).toBe(0);
    const packDir = join(cwd, 'notes');
    linkWorkspaceDependencies(packDir);

    const dev = spawn(process.execPath, [CLI_MAIN, 'dev', '--port', '0'], {
      cwd: packDir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    dev.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    dev.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    const exited = new Promise<number | null>((resolve) => dev.once('exit', resolve));
    const pgid = dev.pid as number;
    try {
      await until(() => existsSync(join(packDir, '.kindgi', 'dev.json')) || dev.exitCode !== null, 'dev.json');
      expect(dev.exitCode, out).toBeNull();

      const call = async () => {
        const run = await kindgi(['call', 'notes.greet', '--arg', 'name=Ada', '--json'], { cwd: packDir });
        return { ...run, output: run.code === 0 ? (JSON.parse(run.stdout) as { output?: unknown }).output : undefined };
      };
      const first = await call();
      expect(first.code, first.stderr).toBe(0);
      expect(first.output).toEqual({ message: 'Hello, Ada!' });

      // A save: the next call runs the new code.
      const toolFile = join(packDir, 'tools', 'greet', 'index.ts');
      editTool(toolFile, "default('Hello')", "default('Howdy')");
      let last = first;
      await until(async () => {
        last = await call();
        return JSON.stringify(last.output) === JSON.stringify({ message: 'Howdy, Ada!' });
      }, 'the saved code to serve');

      // A syntax error: where it is, printed; the last good code keeps answering.
      const printed = out.length;
      const before = readFileSync(toolFile, 'utf8');
      writeFileSync(toolFile, `${before}\nconst broken = ;\n`);
      const line = before.split('\n').length + 1;
      await until(() => out.slice(printed).includes(`tools/greet/index.ts:${line}`), 'the syntax error at file:line');
      expect((await call()).output).toEqual({ message: 'Howdy, Ada!' });

      // The fix reads a variable from .env; an .env edit restarts the pack service with the new value.
      writeFileSync(
        toolFile,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the tool's source text, not a template of this test
        before.replace('`${greeting}, ${name}!`', '`${process.env.GREETING ?? greeting}, ${name}!`'),
      );
      writeFileSync(join(packDir, '.env'), 'GREETING=Bonjour\n');
      await until(
        async () => JSON.stringify((await call()).output) === JSON.stringify({ message: 'Bonjour, Ada!' }),
        'the .env value',
      );
      writeFileSync(join(packDir, '.env'), 'GREETING=Hej\n');
      await until(
        async () => JSON.stringify((await call()).output) === JSON.stringify({ message: 'Hej, Ada!' }),
        'the edited .env value',
      );
      // Names are printed, never values.
      expect(out).not.toMatch(/Bonjour|Hej/);
    } finally {
      // Ctrl-C in a terminal signals the whole foreground group.
      process.kill(-pgid, 'SIGINT');
    }
    expect(await exited, out).toBe(0);
    expect(await groupGone(pgid)).toBe(true);
    expect(existsSync(join(packDir, '.kindgi', 'dev.json'))).toBe(false);
  }, 240_000);
});
