import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeTempDir, REPO_ROOT, startServer, stopAllServers, writeConfig } from './harness.js';

const VENV = process.env.KINDGI_TEST_VENV ?? join(REPO_ROOT, '.ci/venv');
const ST = join(VENV, 'bin', 'st');
const AVAILABLE = existsSync(ST);
const IN_CI = Boolean(process.env.CI);
const TOKEN = 'kgi_test_fuzz_0123456789abcdef';

if (!AVAILABLE && !IN_CI) {
  process.stderr.write(
    `schemathesis.test.ts skipped: ${ST} is missing (create the venv as .ci/run does, or set KINDGI_TEST_VENV)\n`,
  );
}

/** Runs `st` to its exit, keeping what it printed (its report names every failing case with a curl line). */
function runSchemathesis(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(ST, args, {
      cwd,
      // No colour codes in the report; nothing leaves the machine.
      env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_TELEMETRY: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

describe('the OpenAPI document against the server (schemathesis)', () => {
  afterAll(async () => {
    await stopAllServers();
    cleanupTempDirs();
  });

  // Outside CI a machine without the venv skips (the message above says why); in CI it must fail.
  it.skipIf(!AVAILABLE && !IN_CI)(
    'finds no server error and no response the document does not describe',
    async () => {
      if (!AVAILABLE) throw new Error(`${ST} is missing: .ci/run creates the venv with schemathesis`);
      const dir = makeTempDir('fuzz');
      const server = await startServer(
        writeConfig(dir, join(dir, 'data'), { tokens: [{ token: TOKEN, tenantId: 'fuzz' }] }),
      );
      await server.waitFor((record) => record.event === 'pack-child-serving', 'pack-child-serving');
      // A 504 is the documented answer when the caller's `deadlineMs` is shorter than the tool's work (the
      // example pack's slow-report takes about a second): by design for a tool call, a failure anywhere else.
      writeFileSync(
        join(dir, 'schemathesis.toml'),
        '[[operations]]\ninclude-name = "POST /v1/tools/{toolId}/invoke"\n' +
          'checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "504"]\n',
      );
      const { code, output } = await runSchemathesis(
        [
          'run',
          `${server.url}/v1/openapi.json`,
          '--url',
          server.url,
          '--header',
          `Authorization: Bearer ${TOKEN}`,
          '--checks',
          'all',
          // Schema-valid data may rightly be refused: tool inputs and guardrail configs are checked against each
          // pack's own schemas (the document can only say "any JSON"), and cursors are opaque tokens.
          '--exclude-checks',
          'positive_data_acceptance',
          // Bounded and reproducible: a fixed seed, few examples per operation, one worker.
          '--max-examples',
          '20',
          '--seed',
          '1',
          '--workers',
          '1',
          '--request-timeout',
          '30',
        ],
        dir,
      );
      expect(code, output.slice(-12_000)).toBe(0);
      expect(output).toMatch(/\d+ generated, \d+ passed/);
    },
    180_000,
  );
});
