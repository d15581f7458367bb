import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, join } from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createPackServiceClient, createPackServiceSupervisor } from '@kindgi/pack-service';
import { installJavaSdk } from '@kindgi/test-services/java-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  describePackServiceConformance,
  eventOf,
  type IndexPins,
  newToken,
  PINS,
  REQUIRED_ENV,
  sendChecked,
  startListening,
} from '../src/index.js';

// The Java SDK (sdks/java/kindgi-pack) and the fixture pack written against it, built with Maven once
// for the file; the service runs in its own JVM: `java -cp … com.kindgi.pack.Main serve`.
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const javaPackDir = fileURLToPath(new URL('../fixtures/java-pack/', import.meta.url));
const classpathFile = join(javaPackDir, 'target', 'classpath.txt');

function mvn(args: string[]): void {
  try {
    execFileSync('mvn', ['-B', '-q', ...args], { stdio: 'pipe', encoding: 'utf8' });
  } catch (cause) {
    const failure = cause as { stdout?: string; stderr?: string; message: string };
    throw new Error(`mvn ${args.join(' ')} failed:\n${failure.stdout ?? ''}${failure.stderr ?? failure.message}`);
  }
}

// The built classes and the SDK jar are copied to this run's own folder and the JVMs run from there, so
// another build (another run of this file, `mvn install` of the SDK) can't change them under a service.
const runDir = mkdtempSync(join(tmpdir(), 'kindgi-java-conformance-'));
let classpath = '';
function javaClasspath(): string {
  if (!classpath) throw new Error('The Java fixture was not built (see the beforeAll failure)');
  return classpath;
}

beforeAll(() => {
  installJavaSdk(repoRoot);
  mvn([
    '-f',
    join(javaPackDir, 'pom.xml'),
    'package',
    'dependency:build-classpath',
    `-Dmdep.outputFile=${classpathFile}`,
    '-Dmdep.includeScope=runtime',
  ]);
  cpSync(join(javaPackDir, 'target', 'classes'), join(runDir, 'classes'), { recursive: true });
  const deps = readFileSync(classpathFile, 'utf8')
    .trim()
    .split(delimiter)
    .map((jar) => {
      if (!basename(jar).startsWith('kindgi-pack-')) return jar;
      const copy = join(runDir, basename(jar));
      cpSync(jar, copy);
      return copy;
    });
  classpath = [join(runDir, 'classes'), ...deps].join(delimiter);
}, 600_000);

afterAll(() => rmSync(runDir, { recursive: true, force: true }));

function buildJavaFixtureIndex(outPath: string, pins: IndexPins): void {
  execFileSync(
    'java',
    [
      '-cp',
      javaClasspath(),
      'com.kindgi.pack.Main',
      'index',
      '--pack-dir',
      javaPackDir,
      '--output',
      outPath,
      '--artifact-version',
      pins.artifactVersion,
      '--published-at',
      pins.publishedAt,
      '--strict',
    ],
    { stdio: 'pipe' },
  );
}

function javaCommand(): string[] {
  return ['java', '-cp', javaClasspath(), 'com.kindgi.pack.Main', 'serve'];
}

describePackServiceConformance({
  name: 'java',
  packDir: javaPackDir,
  buildIndex: buildJavaFixtureIndex,
  get command() {
    return javaCommand();
  },
});

describe('java pack service under the supervisor', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('swaps between two versions of the code under load without losing a call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kindgi-java-supervisor-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const quiet = join(dir, 'index.json');
    buildJavaFixtureIndex(quiet, PINS);
    // The same index with conformance.echo served by the other class: a second version of the code.
    const index = JSON.parse(readFileSync(quiet, 'utf8')) as { tools: Array<{ id: string; modulePath: string }> };
    const echo = index.tools.find((tool) => tool.id === 'conformance.echo');
    if (!echo) throw new Error('The fixture index has no conformance.echo');
    echo.modulePath = 'src/main/java/conformance/swap/EchoLoud.java';
    const loud = join(dir, 'index-loud.json');
    writeFileSync(loud, JSON.stringify(index));

    const supervisor = createPackServiceSupervisor({
      command: javaCommand(),
      moduleRoot: javaPackDir,
      // The supervisor's descriptor 3 is a socket, which a JVM can't open as /dev/fd/3; `Main serve` takes the
      // token from its environment and keeps it out of the pack JVM's.
      tokenVia: 'env',
      env: () => ({
        PATH: process.env.PATH ?? '',
        CONFORMANCE_REQUIRED: 'present',
        KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '512',
      }),
      restartBackoff: { initialMs: 50 },
    });
    cleanups.push(() => supervisor.close());
    const front = await supervisor.listen();
    const client = createPackServiceClient(front);
    cleanups.push(() => client.close());
    expect((await supervisor.start(quiet)).kind).toBe('ok');

    const call = async (i: number): Promise<string> => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const reply = await client.invoke({
          tool: 'conformance.echo',
          input: { message: `call-${i}` },
          ctx: { tenantId: 'load', runId: `run-${i}` },
        });
        if (reply.kind === 'ok') {
          const message = reply.value;
          if (message.kind !== 'result') return `wrong: ${JSON.stringify(message)}`;
          const text = (message.output as { message: string }).message;
          if (text === `call-${i}`) return 'quiet';
          if (text === `CALL-${i}`) return 'loud';
          return `wrong: ${text}`;
        }
        // 503: the call did not run (no child for a moment); the caller retries it.
        if (reply.error.code !== 'pack-unavailable') return `wrong: ${JSON.stringify(reply.error)}`;
        await wait(20);
      }
      return 'wrong: still unavailable';
    };

    const calls: Promise<string>[] = [];
    let loading = true;
    const load = (async () => {
      while (loading) {
        for (let n = 0; n < 5; n++) calls.push(call(calls.length));
        await wait(10);
      }
    })();
    const swaps: string[] = [];
    for (const next of [loud, quiet, loud]) {
      await wait(500);
      swaps.push((await supervisor.start(next)).kind);
    }
    await wait(500);
    loading = false;
    await load;
    const outcomes = await Promise.all(calls);
    expect(swaps).toEqual(['ok', 'ok', 'ok']);
    expect(outcomes.filter((o) => o.startsWith('wrong'))).toEqual([]);
    expect(outcomes).toContain('quiet');
    expect(outcomes).toContain('loud');
    // The last swap put the loud code in front: the calls made after it are answered by it.
    expect(outcomes[outcomes.length - 1]).toBe('loud');
  }, 120_000);
});

describe('java pack service trace ids', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("puts the caller's traceparent in its call, ctx.log and error records, and ignores a malformed one", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kindgi-java-trace-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const indexPath = join(dir, 'index.json');
    buildJavaFixtureIndex(indexPath, PINS);
    const service = await startListening({
      command: javaCommand(),
      indexPath,
      moduleRoot: javaPackDir,
      env: { PATH: process.env.PATH ?? '', ...REQUIRED_ENV },
      token: newToken(),
    });
    cleanups.push(() => service.kill());
    const call = (runId: string, traceparent: string) =>
      sendChecked(service.url, '/v1/invoke', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'kindgi-pack-token': service.token, traceparent },
        body: JSON.stringify({
          v: 2,
          kind: 'invoke',
          tool: { id: 'conformance.throws' },
          input: {},
          ctx: { tenantId: 't', runId },
        }),
      });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentSpanId = '00f067aa0ba902b7';
    expect((await call('run-traced', `00-${traceId}-${parentSpanId}-01`)).status).toBe(200);
    const record = await service.record((r) => eventOf(r) === 'call' && r.runId === 'run-traced');
    expect(record).toMatchObject({ outcome: 'handler-throw', traceId, parentSpanId });
    expect(record.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(record.spanId).not.toBe(parentSpanId);
    const line = await service.record((r) => r.subsystem === 'pack.tool' && r.runId === 'run-traced');
    expect(line).toMatchObject({ message: 'conformance.throws is about to throw', traceId, spanId: record.spanId });

    await call('run-malformed', `00-${traceId.toUpperCase().replace(/A/g, 'Z')}-${parentSpanId}-01`);
    const fresh = await service.record((r) => eventOf(r) === 'call' && r.runId === 'run-malformed');
    expect(fresh.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh.traceId).not.toBe(traceId);
    expect(fresh).not.toHaveProperty('parentSpanId');
  }, 120_000);
});
