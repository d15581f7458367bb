import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanup,
  EXAMPLE_PACK_DIR,
  groupGone,
  invoke,
  invokeUntil,
  makeTempDir,
  readDevFile,
  startDev,
} from './dev-harness.js';

const CONFIG = `import { defineConfig } from '@kindgi/sdk';

export default defineConfig({
  pack: { id: 'devtest', version: '0.1.0' },
  env: { required: ['GREETING'], optional: ['UNSET_OPTIONAL'] },
});
`;

/** The tool's source: its greeting word comes from the env, its marker from the code. */
function tool(marker: string): string {
  return `import { defineTool } from '@kindgi/sdk';

export default defineTool({
  id: 'devtest.greet',
  description: 'Greets someone, saying whether the API key secret arrived.',
  input: { type: 'object', required: ['name'], properties: { name: { type: 'string' } }, additionalProperties: false },
  output: { type: 'object', additionalProperties: true },
  needsSpec: { secrets: { API_KEY: { type: 'string', minLength: 8 } } },
  handler: async (input: { name: string }, ctx) => {
    console.log('greeting ' + input.name);
    return {
      message: (process.env.GREETING ?? '?') + ' ' + input.name,
      marker: '${marker}',
      keyArrived: ctx.secrets.API_KEY === 'local-secret-123',
      shellLeak: process.env.KINDGI_DEV_TEST_SHELL ?? null,
    };
  },
});
`;
}

/** A TypeScript pack in a temp folder (its dependencies: the example pack's, through a link). */
function writePack(): string {
  const dir = join(makeTempDir('dev-ts'), 'pack');
  mkdirSync(join(dir, 'tools', 'greet'), { recursive: true });
  writeFileSync(join(dir, 'kindgi.config.ts'), CONFIG);
  writeFileSync(join(dir, 'tools', 'greet', 'index.ts'), tool('v1'));
  writeFileSync(join(dir, 'package.json'), '{ "name": "devtest", "private": true, "type": "module" }\n');
  symlinkSync(join(EXAMPLE_PACK_DIR, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, '.env'), 'GREETING=hello\n');
  writeFileSync(join(dir, '.env.local'), 'API_KEY=local-secret-123\n');
  return dir;
}

describe('kindgi dev on a TypeScript pack', () => {
  afterAll(cleanup);

  it('serves, reloads on save, keeps the last good code on a syntax error, restarts on .env, stops on SIGINT', async () => {
    const packDir = writePack();
    // A variable of the shell, and a declared name set there: neither may reach the pack service.
    const dev = startDev(packDir, { ...process.env, KINDGI_DEV_TEST_SHELL: 'leaked', GREETING: 'from-shell' });
    const serving = await dev.waitFor((line) => line.event === 'serving', 'serving');
    const file = readDevFile(packDir);
    expect(file).toEqual({ url: serving.url, token: serving.token, pid: dev.child.pid });
    expect(statSync(join(packDir, '.kindgi', 'dev.json')).mode & 0o777).toBe(0o600);
    const env = await dev.waitFor((line) => line.event === 'env', 'env report');
    expect(env).toMatchObject({
      loaded: ['API_KEY', 'GREETING'],
      missingRequired: [],
      missingOptional: ['UNSET_OPTIONAL'],
    });
    expect(JSON.stringify(dev.lines)).not.toContain('local-secret-123');

    const call = () => invoke(file.url, file.token, 'devtest.greet', { name: 'ada' });
    const first = await call();
    expect(first.status).toBe(200);
    expect(first.body.output).toEqual({ message: 'hello ada', marker: 'v1', keyArrived: true, shellLeak: null });
    await dev.waitFor((line) => line.event === 'pack-output' && line.line === 'greeting ada', '[pack] output');

    // A save: the next calls see the new code.
    const toolFile = join(packDir, 'tools', 'greet', 'index.ts');
    let mark = dev.lines.length;
    writeFileSync(toolFile, tool('v2'));
    await dev.waitFor((line) => line.event === 'reindexed', 'reindexed', mark);
    expect((await call()).body.output).toMatchObject({ marker: 'v2' });

    // A syntax error: file:line printed, the last good code keeps serving.
    mark = dev.lines.length;
    const broken = `${tool('v3')}\nconst oops = ;\n`;
    writeFileSync(toolFile, broken);
    const failed = await dev.waitFor((line) => line.event === 'reindex-failed', 'reindex-failed', mark);
    const line = broken.split('\n').indexOf('const oops = ;') + 1;
    expect(failed.problems).toContainEqual(
      expect.stringMatching(new RegExp(`^tools/greet/index\\.ts:${line}(:\\d+)?: `)),
    );
    expect((await call()).body.output).toMatchObject({ marker: 'v2' });

    mark = dev.lines.length;
    writeFileSync(toolFile, tool('v4'));
    await dev.waitFor((line) => line.event === 'reindexed', 'reindexed after the fix', mark);

    // An .env edit restarts the service with the new value, and the names are reported again.
    mark = dev.lines.length;
    writeFileSync(join(packDir, '.env'), 'GREETING=bonjour\nEXTRA=1\n');
    await dev.waitFor((line) => line.event === 'restarted', 'restarted', mark);
    const report = await dev.waitFor((line) => line.event === 'env', 'env report after the restart', mark);
    expect(report.loaded).toEqual(['API_KEY', 'EXTRA', 'GREETING']);
    const after = await invokeUntil(
      call,
      (answer) => (answer.body.output as { message?: string })?.message === 'bonjour ada',
    );
    expect(after.body.output).toMatchObject({ message: 'bonjour ada', marker: 'v4', keyArrived: true });

    // SIGINT to the whole group (as a terminal's Ctrl-C): exit 0, dev.json gone, no process left.
    const pgid = dev.child.pid as number;
    process.kill(-pgid, 'SIGINT');
    expect(await dev.exited).toBe(0);
    expect(existsSync(join(packDir, '.kindgi', 'dev.json'))).toBe(false);
    expect(await groupGone(pgid)).toBe(true);
    expect(dev.lines.at(-1)?.event).toBe('stopped');
  }, 180_000);

  it('prints the banner and [pack] lines for people, and a missing secret names itself', async () => {
    const packDir = writePack();
    writeFileSync(join(packDir, '.env.local'), '');
    const { spawn } = await import('node:child_process');
    const { CLI_MAIN } = await import('./dev-harness.js');
    const child = spawn(process.execPath, [CLI_MAIN, 'dev', '--pack-dir', packDir, '--port', '0'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    const exited = new Promise<number | null>((done) => child.once('exit', done));
    try {
      const deadline = Date.now() + 60_000;
      while (!existsSync(join(packDir, '.kindgi', 'dev.json')) && Date.now() < deadline) {
        await new Promise((done) => setTimeout(done, 50));
      }
      const file = readDevFile(packDir);
      expect(out).toContain(`serves on ${file.url}`);
      expect(out).toContain(file.token);
      const answer = await invoke(file.url, file.token, 'devtest.greet', { name: 'bob' });
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({ error: { code: 'secret-missing' } });
      writeFileSync(join(packDir, '.env.local'), 'API_KEY=local-secret-123\n');
      const ok = await invokeUntil(
        () => invoke(file.url, file.token, 'devtest.greet', { name: 'bob' }),
        (reply) => reply.status === 200,
      );
      expect(ok.body.output).toMatchObject({ keyArrived: true });
      const until = Date.now() + 10_000;
      while (!err.includes('[pack] greeting bob') && Date.now() < until) await new Promise((d) => setTimeout(d, 50));
      expect(err).toContain('[pack] greeting bob');
      expect(err).toContain('env: loaded GREETING');
      expect(readFileSync(join(packDir, '.env.local'), 'utf8')).toContain('API_KEY');
    } finally {
      process.kill(-(child.pid as number), 'SIGINT');
    }
    expect(await exited).toBe(0);
    expect(await groupGone(child.pid as number)).toBe(true);
  }, 120_000);
});
