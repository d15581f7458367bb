import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installJavaSdk } from '@kindgi/test-services/java-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken, send, startListening } from '../src/index.js';

// docs/java.md is the Java pack author's only guide: this file builds the project it describes from its
// blocks (the first `xml` block is the whole pom, the first `json` block the pack config, every `java`
// block whose first line is `// src/…` a file), then runs what the page tells an author to run: the
// tests, the index command (its `sh` block, verbatim) and a served call. So the page can't drift.
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const docsPath = join(repoRoot, 'docs/java.md');

interface Block {
  lang: string;
  body: string;
  /** The `## ` heading the block sits under. */
  section: string;
}

function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  let section = '';
  let open: { lang: string; lines: string[] } | undefined;
  for (const line of markdown.split('\n')) {
    if (open) {
      if (line.startsWith('```')) {
        out.push({ lang: open.lang, body: `${open.lines.join('\n')}\n`, section });
        open = undefined;
      } else open.lines.push(line);
    } else if (line.startsWith('```')) open = { lang: line.slice(3).trim(), lines: [] };
    else if (line.startsWith('## ')) section = line.slice(3).trim();
  }
  return out;
}

function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, { cwd, stdio: 'pipe', encoding: 'utf8' });
  } catch (cause) {
    const failure = cause as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(' ')} failed:\n${failure.stdout ?? ''}${failure.stderr ?? failure.message}`,
    );
  }
}

const docs = blocks(readFileSync(docsPath, 'utf8'));
const projectDir = mkdtempSync(join(tmpdir(), 'kindgi-java-docs-'));

function writeProject(): string[] {
  const pom = docs.find((block) => block.lang === 'xml');
  const config = docs.find((block) => block.lang === 'json');
  if (!pom || !config) throw new Error('docs/java.md has no xml (pom) or json (kindgi.config.json) block');
  writeFileSync(join(projectDir, 'pom.xml'), pom.body);
  writeFileSync(join(projectDir, 'kindgi.config.json'), config.body);
  const files: string[] = [];
  for (const block of docs) {
    const path = /^\/\/ (src\/\S+\.java)\n/.exec(block.body)?.[1];
    if (block.lang !== 'java' || !path) continue;
    mkdirSync(dirname(join(projectDir, path)), { recursive: true });
    writeFileSync(join(projectDir, path), block.body);
    files.push(path);
  }
  return files;
}

describe('docs/java.md, followed as written', () => {
  let files: string[] = [];
  const servers: Server[] = [];

  beforeAll(() => {
    // The SDK and the packs' parent POM, as the page's first command installs them.
    installJavaSdk(repoRoot);
    files = writeProject();
  }, 600_000);

  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    rmSync(projectDir, { recursive: true, force: true });
  });

  it('holds the whole project: the pom, the seed sample classes and their tests', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'src/main/java/acme/tools/VerifyCitation.java',
        'src/main/java/acme/tools/Citator.java',
        'src/main/java/acme/guardrails/Citations.java',
        'src/test/java/acme/CitationsTest.java',
        'src/test/java/acme/VerifyCitationTest.java',
      ]),
    );
  });

  it('builds with `mvn test` on this machine, running the tests', () => {
    run('mvn', ['-B', '-q', 'test'], projectDir);
    const reports = join(projectDir, 'target/surefire-reports');
    let tests = 0;
    let failed = 0;
    for (const name of readdirSync(reports).filter((file) => file.startsWith('TEST-') && file.endsWith('.xml'))) {
      const head = /<testsuite [^>]*>/.exec(readFileSync(join(reports, name), 'utf8'))?.[0] ?? '';
      const count = (attribute: string): number => Number(new RegExp(` ${attribute}="(\\d+)"`).exec(head)?.[1] ?? 0);
      tests += count('tests');
      failed += count('failures') + count('errors');
    }
    expect(tests).toBeGreaterThan(0);
    expect(failed).toBe(0);
  }, 600_000);

  it('indexes with the documented command, constraints included, then serves a call', async () => {
    const indexBlock = docs.find((block) => block.lang === 'sh' && block.section === '3. The index');
    if (!indexBlock) throw new Error('docs/java.md has no sh block under "## 3. The index"');
    run('sh', ['-e', '-c', indexBlock.body], projectDir);
    const index = JSON.parse(readFileSync(join(projectDir, 'target/index.json'), 'utf8'));
    expect(index.artifactVersion).toMatch(/^\d{8}\.1$/);
    const tool = index.tools.find((entry: { id: string }) => entry.id === 'acme.verify-citation');
    expect(tool.input.properties.jurisdiction.pattern).toBe('^(US|UK|EU)$');
    expect(tool.input.properties.citation.minLength).toBe(1);

    const key = 'key-of-at-least-twenty-chars';
    const citator = createServer((req, res) => {
      const ok = req.headers.authorization === `Bearer ${key}` && req.url?.startsWith('/lookup?');
      res.writeHead(ok ? 200 : 401).end(ok ? '1 U.S. 1 (1790)' : '');
    });
    servers.push(citator);
    await new Promise<void>((resolve) => citator.listen(0, '127.0.0.1', resolve));
    const citatorUrl = `http://127.0.0.1:${(citator.address() as AddressInfo).port}`;
    const deps = readFileSync(join(projectDir, 'target/classpath.txt'), 'utf8').trim();
    const service = await startListening({
      command: ['java', '-cp', `${join(projectDir, 'target/classes')}:${deps}`, 'com.kindgi.pack.Main', 'serve'],
      indexPath: join(projectDir, 'target/index.json'),
      moduleRoot: projectDir,
      env: { PATH: process.env.PATH ?? '', CITATOR_URL: citatorUrl },
      token: newToken(),
    });
    try {
      const reply = await send(service.url, '/v1/invoke', {
        method: 'POST',
        headers: { 'kindgi-pack-token': service.token, 'content-type': 'application/json' },
        body: JSON.stringify({
          v: 2,
          kind: 'invoke',
          tool: { id: 'acme.verify-citation' },
          input: { citation: '1 U.S. 1', jurisdiction: 'US' },
          ctx: { tenantId: 't', runId: 'r', secrets: { CITATOR_KEY: key } },
        }),
      });
      expect(reply.body).toEqual({ v: 2, kind: 'result', output: { found: true, canonicalCite: '1 U.S. 1 (1790)' } });
    } finally {
      // SIGTERM: the launcher relays it, and the child JVM drains and exits with it.
      service.proc.kill('SIGTERM');
      expect((await service.exited).code).toBe(0);
    }
  }, 600_000);
});
