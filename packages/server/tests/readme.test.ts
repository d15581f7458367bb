import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { type ScriptedModel, startScriptedModel } from '@kindgi/test-services/model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './agents-pack.js';
import {
  cleanupTempDirs,
  EXAMPLE_PACK_DIR,
  makeTempDir,
  REPO_ROOT,
  type RunningServer,
  readCredentials,
  startServer,
  stopAllServers,
} from './harness.js';
import { api } from './http.js';

const run = promisify(execFile);
const README = join(REPO_ROOT, 'README.md');
const README_URL = 'http://127.0.0.1:8787';

/** The `sh` block under the README's "## Try it" heading: the first, or (`nth`) a later one. */
function tryItBlock(markdown: string, nth = 0): string {
  const section = markdown.split(/^## Try it\s*$/m)[1];
  if (section === undefined) throw new Error('README.md has no "## Try it" section');
  const blocks = [...(section.split(/^## /m)[0] ?? '').matchAll(/^```sh\n([\s\S]*?)^```$/gm)];
  const block = blocks[nth]?.[1];
  if (!block) throw new Error(`the "## Try it" section has no ${nth + 1}. \`\`\`sh block`);
  return block;
}

/** The model the README's agent example is pointed at here: the support agent's turn, scripted. */
function supportTurn(): Promise<ScriptedModel> {
  return startScriptedModel((_index, request) =>
    request.body.messages.some((message) => message.role === 'tool')
      ? { kind: 'text', text: 'CASE-1001 is open [Refund policy, p. 3].' }
      : {
          kind: 'tools',
          calls: [
            call('acme.lookup-case', { caseId: 'CASE-1001' }),
            call('acme.format-citation', { source: 'Refund policy', page: 3 }),
          ],
        },
  );
}

/** The committed example config with only what a test must change: a temp dataDir, port 0, absolute pack dirs. */
function exampleConfig(dataDir: string): Record<string, unknown> {
  const committed = JSON.parse(readFileSync(join(EXAMPLE_PACK_DIR, 'kindgi.server.json'), 'utf8')) as {
    packs?: { dir: string }[];
  };
  return {
    ...committed,
    port: 0,
    dataDir,
    packs: (committed.packs ?? []).map((pack) => ({ ...pack, dir: resolve(EXAMPLE_PACK_DIR, pack.dir) })),
  };
}

/** The test runner's environment without AWS settings that would change what the CLI does. */
function shellEnv(home: string, path: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('AWS_') && !name.startsWith('KINDGI_') && value !== undefined) env[name] = value;
  }
  return { ...env, HOME: home, PATH: path };
}

/** PATH as it is when `aws` on it works, else with /usr/bin (Debian's awscli) first. */
async function pathWithWorkingAws(home: string): Promise<string> {
  const path = process.env.PATH ?? '/usr/bin:/bin';
  try {
    await run('aws', ['--version'], { env: shellEnv(home, path) });
    return path;
  } catch {
    return `/usr/bin:${path}`;
  }
}

describe("the README's Try it examples", () => {
  let root: string;
  let cwd: string;
  let server: RunningServer;
  let model: ScriptedModel;

  beforeAll(async () => {
    model = await supportTurn();
    root = makeTempDir('readme');
    cwd = join(root, 'repo');
    mkdirSync(cwd, { recursive: true });
    copyFileSync(README, join(cwd, 'README.md'));
    // dataDir is the shell's ./.kindgi, as with `pnpm start` from the repository's folder.
    const configPath = join(root, 'kindgi.server.json');
    // The README tells the reader to add a `models` entry; here it is the suite's scripted model.
    const models = { default: { provider: 'openai-compatible', baseUrl: model.url, model: 'scripted-1' } };
    writeFileSync(configPath, JSON.stringify({ ...exampleConfig(join(cwd, '.kindgi')), models }, null, 2));
    server = await startServer(configPath);
  });

  afterAll(async () => {
    await stopAllServers();
    await model?.close();
    cleanupTempDirs();
  });

  it('work as written against a started server', async () => {
    const home = join(root, 'home');
    mkdirSync(home, { recursive: true });
    const markdown = readFileSync(README, 'utf8');
    const block = tryItBlock(markdown);
    expect(block).toContain(README_URL);
    const script = join(root, 'try-it.sh');
    writeFileSync(script, block.replaceAll(README_URL, server.url));

    const { stdout } = await run('bash', ['-euo', 'pipefail', script], {
      cwd,
      env: shellEnv(home, await pathWithWorkingAws(home)),
      maxBuffer: 16 * 1024 * 1024,
    });

    // curl prints the tool's answer without a newline; the run's stream follows it directly.
    const citation = '{"output":{"citation":"[Brown v. Board, p. 483]"}}';
    expect(stdout.startsWith(citation)).toBe(true);
    const uploadAt = stdout.indexOf('upload: ./README.md to s3://artifacts/docs/README.md');
    expect(uploadAt).toBeGreaterThan(0);
    const stream = stdout.slice(citation.length, uploadAt);
    const events = [...stream.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(events).toEqual(['run.started', 'run.completed']);
    const data = [...stream.matchAll(/^data: (.+)$/gm)].map((match) => JSON.parse(match[1] ?? '{}'));
    expect(data.at(-1)).toMatchObject({ status: 'completed', output: { stepsCompleted: 3 } });
    const secretAt = stdout.indexOf('same bytes through S3 and REST\n');
    expect(secretAt).toBeGreaterThan(uploadAt);
    // The secret set (metadata only), then the tool that used it: signed with the value set.
    const signature = createHmac('sha256', 'citator-demo-key-0123456789')
      .update('[Brown v. Board, p. 483]')
      .digest('hex')
      .slice(0, 16);
    expect(stdout.slice(secretAt + 'same bytes through S3 and REST\n'.length)).toBe(
      `{"name":"CITATOR_KEY","env":"production","version":1}\n{"output":{"citation":"[Brown v. Board, p. 483]","signature":"${signature}"}}`,
    );
    expect(readFileSync(join(cwd, '.kindgi', 'README.copy.md'))).toEqual(readFileSync(join(cwd, 'README.md')));

    // The upload really went through the server: the listing shows it with the README's size.
    const { token } = readCredentials(join(cwd, '.kindgi'));
    const listed = await api(server.url, token, 'GET', '/v1/artifacts?limit=100');
    const entry = (listed.body as { data: { key: string; size: number }[] }).data.find(
      (item) => item.key === 'docs/README.md',
    );
    expect(entry?.size).toBe(Buffer.byteLength(markdown));
  }, 90_000);

  it('runs the example agent as written against the model its config names', async () => {
    const home = join(root, 'home-agent');
    mkdirSync(home, { recursive: true });
    const block = tryItBlock(readFileSync(README, 'utf8'), 1);
    expect(block).toContain('"agentId": "acme.support-agent"');
    const script = join(root, 'try-agent.sh');
    writeFileSync(script, block.replaceAll(README_URL, server.url));
    const { stdout } = await run('bash', ['-euo', 'pipefail', script], {
      cwd,
      env: shellEnv(home, process.env.PATH ?? ''),
    });
    const lines = stdout.trim().split('\n');
    expect(lines.slice(0, -1)).toEqual([
      'event: run.started',
      'event: model.call',
      'event: tool.call',
      'event: tool.call',
      'event: tool.result',
      'event: tool.result',
      'event: model.call',
      'event: guardrail.result',
      'event: run.completed',
    ]);
    expect(JSON.parse(lines.at(-1) ?? '{}')).toEqual({
      status: 'completed',
      answer: 'CASE-1001 is open [Refund policy, p. 3].',
      usage: { inputTokens: 22, outputTokens: 14, totalTokens: 36 },
      violations: [],
    });
  }, 60_000);

  it('names a docs page and an OpenAPI document that the server serves', async () => {
    const markdown = readFileSync(README, 'utf8');
    expect(markdown).toContain(`<${README_URL}/docs>`);
    expect(markdown).toContain('`/v1/openapi.json`');
    const docs = await fetch(`${server.url}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
    const openapi = await fetch(`${server.url}/v1/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(((await openapi.json()) as { openapi: string }).openapi).toMatch(/^3\./);
  });
});
