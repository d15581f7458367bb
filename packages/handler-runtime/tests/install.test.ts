import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPackServiceClient } from '@kindgi/handler-runtime/pack-service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Ran, runCommand, startService } from './helpers/processes.js';
import { consumerEnv, PACK_FILES, type Packed, packAll } from './helpers/tarballs.js';

// Installs the published tarballs as a user would (npm, then pnpm) into empty folders and runs the seed's
// command lines there verbatim. Third-party dependencies come from the package managers' caches where
// they hold them (`--prefer-offline`), from the registry otherwise.
const NODE = process.execPath;
const TOKEN = 'install-test-token-0123456789abcdef';
const PINS = ['--artifact-version', '20260920.1', '--published-at', '2026-09-20T14:32:07.104Z'];

const root = mkdtempSync(join(tmpdir(), 'kindgi-install-'));
let packed: Packed;
beforeAll(async () => {
  packed = await packAll(join(root, 'tarballs'));
}, 300_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

function consumer(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const [path, text] of Object.entries(PACK_FILES)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

function expectOk(ran: Ran, what: string): void {
  expect(ran.code, `${what}\n${ran.stdout}\n${ran.stderr}`).toBe(0);
}

/** The seed's command lines, in an installed consumer folder. */
async function runSeedCommands(dir: string): Promise<void> {
  const env = consumerEnv();
  const bin = (name: string) => join(dir, 'node_modules', '.bin', name);
  // `kindgi-index --pack-dir . --output dist/index.json`: the TypeScript sources, through tsx.
  expectOk(
    await runCommand(bin('kindgi-index'), ['--pack-dir', '.', '--output', 'dist/index.json', ...PINS], dir, env),
    'kindgi-index',
  );
  // The image's way: bundles and their map, then the index of the build (no loader).
  expectOk(
    await runCommand(bin('kindgi-pack-build'), ['--pack-dir', '.', '--out-dir', 'build'], dir, env),
    'kindgi-pack-build',
  );
  const buildArgs = ['--pack-dir', 'build', '--bundle-map', 'build/bundle-map.json', '--module-root', 'build'];
  expectOk(
    await runCommand(bin('kindgi-index'), [...buildArgs, '--output', 'build/index.json', ...PINS], dir, env),
    'kindgi-index --bundle-map',
  );
  expect(readFileSync(join(dir, 'build/index.json'), 'utf8')).toBe(readFileSync(join(dir, 'dist/index.json'), 'utf8'));
  expect(existsSync(bin('kindgi-pack-service'))).toBe(true);

  const serviceArgs = ['--index', 'dist/index.json', '--bundle-map', 'build/bundle-map.json', '--module-root', 'build'];
  const entries = [
    'node_modules/@kindgi/handler-runtime/dist/pack-service/main.js',
    'node_modules/@kindgi/handler-runtime/dist/kindgi-pack-service.mjs',
  ];
  for (const entry of entries) {
    const service = await startService(NODE, [entry, ...serviceArgs, '--host', '127.0.0.1'], dir, {
      ...env,
      PORT: '0',
      KINDGI_PACK_SERVICE_TOKEN: TOKEN,
    });
    const client = createPackServiceClient({ url: `http://127.0.0.1:${service.port}`, token: TOKEN });
    try {
      const reply = await client.invoke({
        tool: { id: 'calc.add' },
        input: { a: 2, b: 3 },
        ctx: { tenantId: 't', runId: 'r' },
      });
      expect(reply, `${entry}\n${service.stderr()}`).toEqual({
        kind: 'ok',
        value: { v: 2, kind: 'result', output: { sum: 5 } },
      });
    } finally {
      await client.close();
      await service.stop();
    }
  }
  // @kindgi/testing imports under plain Node, without vitest installed.
  const testing = await runCommand(
    NODE,
    [
      '--input-type=module',
      '-e',
      "const t = await import('@kindgi/testing'); console.log(typeof t.createStubAppBindings);",
    ],
    dir,
    env,
  );
  expect(testing, testing.stderr).toMatchObject({ code: 0, stdout: 'function\n' });
}

describe('the published packages, installed', () => {
  it('pack without the source condition, with engines, repository, a README and every export shipped', () => {
    expect(packed.problems).toEqual([]);
    expect(packed.manifests.map((m) => m.name).sort()).toEqual(packed.expectedNames);
  });

  it('with npm: the seed command lines work, and a tool call returns its result', async () => {
    const dir = consumer('npm');
    writeFileSync(join(dir, 'package.json'), JSON.stringify(packed.consumerManifest('npm'), null, 2));
    const args = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
    expectOk(await runCommand('npm', args, dir, consumerEnv()), 'npm install');
    await runSeedCommands(dir);
  }, 600_000);

  it('with pnpm: the seed command lines work, and a tool call returns its result', async () => {
    const dir = consumer('pnpm');
    writeFileSync(join(dir, 'package.json'), JSON.stringify(packed.consumerManifest('pnpm'), null, 2));
    writeFileSync(join(dir, 'pnpm-workspace.yaml'), packed.pnpmWorkspace());
    const args = ['install', '--prefer-offline', '--reporter=append-only'];
    expectOk(await runCommand('pnpm', args, dir, consumerEnv()), 'pnpm install');
    await runSeedCommands(dir);
  }, 600_000);

  it('with npm --omit=optional: @kindgi/api serves without the docs UI, and asks for it only when docs are on', async () => {
    const dir = join(root, 'api-without-docs');
    mkdirSync(dir);
    const names = [
      '@kindgi/agent-kernel',
      '@kindgi/api',
      '@kindgi/bindings',
      '@kindgi/log',
      '@kindgi/mcp',
      '@kindgi/protocol',
      '@kindgi/run-worker',
      '@kindgi/s3',
      '@kindgi/testing',
    ];
    writeFileSync(join(dir, 'package.json'), JSON.stringify(packed.consumerManifest('npm', names), null, 2));
    const args = ['install', '--omit=optional', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
    expectOk(await runCommand('npm', args, dir, consumerEnv()), 'npm install --omit=optional');
    expect(existsSync(join(dir, 'node_modules/@scalar/api-reference'))).toBe(false);
    const script = `import { createApp } from '@kindgi/api';
import { createStubAppBindings } from '@kindgi/testing';
const spec = await createApp({ ...createStubAppBindings() }).request('/v1/openapi.json');
let docs;
try {
  docs = (await createApp({ ...createStubAppBindings(), openapi: { docs: true } }).request('/docs')).status;
} catch (thrown) {
  docs = thrown.code;
}
console.log(spec.status, docs);
`;
    const ran = await runCommand(NODE, ['--input-type=module', '-e', script], dir, consumerEnv());
    expect(ran, ran.stderr).toMatchObject({ code: 0, stdout: '200 scalar-bundle-missing\n' });
  }, 600_000);
});
