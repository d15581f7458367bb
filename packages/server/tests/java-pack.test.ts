import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeTempDir, readCredentials, startServer, stopAllServers, writeConfig } from './harness.js';
import { api } from './http.js';
import { installJavaSdk, writeJavaPack } from './java-fixtures.js';

// A Java pack (kindgi.config.json `"language": "java"`) under kindgi-server with `watch`: compiled with
// Maven, indexed with `Main index`, served by `Main serve` under the supervisor, recompiled on save.

function greet(greeting: string, broken = false): string {
  return `package acme.tools;

import com.kindgi.pack.Tool;

public final class Greet {
  public record Input(String name) {}

  public record Output(String text) {}

  public static final Tool<Input, Output> TOOL = Tool.define("acme.greet")
      .description("Greets someone by name.")
      .input(Input.class)
      .output(Output.class)
      .mutating(false)
      .handler((input, ctx) -> new Output("${greeting}, " + input.name()))${broken ? '' : ';'}

  private Greet() {}
}
`;
}

function writePack(dir: string): string {
  writeJavaPack(dir, 'acme-java-pack', { 'acme/tools/Greet.java': greet('Hello') });
  return join(dir, 'src/main/java/acme/tools/Greet.java');
}

describe('a watched Java pack', () => {
  beforeAll(() => {
    installJavaSdk();
  }, 600_000);

  afterAll(async () => {
    await stopAllServers();
    cleanupTempDirs();
  });

  it('keeps the old code serving through a compile error (logged as file:line:col), then swaps on the fix', async () => {
    const root = makeTempDir('java-watch');
    const packDir = join(root, 'pack');
    const tool = writePack(packDir);
    const dataDir = join(root, 'data');
    const configPath = writeConfig(root, dataDir, { packs: [{ dir: packDir, watch: true }] });
    const server = await startServer(configPath);
    const { token } = readCredentials(dataDir);
    await server.waitFor((record) => record.event === 'pack-child-serving', 'pack-child-serving');
    const call = async (): Promise<string> => {
      try {
        const reply = await api(server.url, token, 'POST', '/v1/tools/acme.greet/invoke', { input: { name: 'Ada' } });
        if (reply.status !== 200) return `HTTP ${reply.status}: ${JSON.stringify(reply.body)}`;
        return (reply.body as { output: { text: string } }).output.text;
      } catch (cause) {
        return `failed: ${String(cause)}`;
      }
    };
    expect(await call()).toBe('Hello, Ada');

    // Calls keep coming through both saves; every one must be answered by the old or the new code.
    const answers: string[] = [];
    let calling = true;
    const load = (async () => {
      while (calling) {
        answers.push(await call());
        // Paced, so the calls don't starve Maven of the machine's cores.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    try {
      await saveBrokenThenFixed();
    } finally {
      calling = false;
      await load;
    }
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.filter((answer) => answer !== 'Hello, Ada' && answer !== 'Hi, Ada')).toEqual([]);

    async function saveBrokenThenFixed(): Promise<void> {
      // The next build outcome logged after the records seen so far.
      const outcome = (what: string) => {
        const seen = server.records.length;
        return server.waitFor(
          (record) =>
            server.records.indexOf(record) >= seen &&
            (record.event === 'pack-reindex-failed' || record.event === 'pack-reloaded'),
          what,
        );
      };

      // It compiles, but a public class in a tools package that defines no tool is a file error: no swap.
      const helper = join(packDir, 'src/main/java/acme/tools/Helper.java');
      let next = outcome('the unindexable save handled');
      writeFileSync(helper, 'package acme.tools;\n\npublic final class Helper {}\n');
      expect(await next).toMatchObject({
        event: 'pack-reindex-failed',
        problems: [{ code: 'no-default-export', file: 'src/main/java/acme/tools/Helper.java' }],
      });
      expect(await call()).toBe('Hello, Ada');

      // A compile error: logged as file:line:col, and the old code keeps serving. (Removing the helper may be
      // built on its own first: the same code again.)
      const seen = server.records.length;
      rmSync(helper);
      writeFileSync(tool, greet('Hi', true));
      const failed = await server.waitFor(
        (record) =>
          server.records.indexOf(record) >= seen &&
          record.event === 'pack-reindex-failed' &&
          JSON.stringify(record.problems).includes('compile-failed'),
        'the broken save handled',
      );
      expect(String(failed.message)).toMatch(/src\/main\/java\/acme\/tools\/Greet\.java:\d+:\d+: /);
      expect(failed.problems).toEqual([
        expect.objectContaining({ code: 'compile-failed', file: 'src/main/java/acme/tools/Greet.java' }),
      ]);
      expect(await call()).toBe('Hello, Ada');

      next = outcome('the fixed save handled');
      writeFileSync(tool, greet('Hi'));
      expect(await next).toMatchObject({ event: 'pack-reloaded' });
      expect(await call()).toBe('Hi, Ada');
    }
  }, 600_000);
});
