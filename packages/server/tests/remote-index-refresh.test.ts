import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakePack, type FakePackService, type FakeTool, startFakePackService } from './fake-pack-service.js';
import {
  cleanupTempDirs,
  makeTempDir,
  type RunningServer,
  startServer,
  stopAllServers,
  writeConfig,
} from './harness.js';
import { api } from './http.js';

// A remote pack of 100,000 tools whose `artifactVersion` changes on every read, as a service that publishes
// on every poll would: the server reads its index at most once per `minRefreshMs`, rebuilds nothing when the
// tools are the same, and reloads once when they change. Call latencies meanwhile go to the log.
const TOKEN = 'remote-refresh-api-token-0123';
const PACK_TOKEN = 'remote-refresh-pack-token-0123';
const TOOLS: FakeTool[] = Array.from({ length: 100_000 }, (_, n) => ({ id: `big.t${n}`, version: '1.0.0' }));

/**
 * A pack whose version is new every time it is read (every `/v1/info` and `/v1/index`); with `drift`, one
 * tool's output schema changes with it too, so every index read serves other tools (what a rebuild on every
 * version change, before the content hash, cost).
 */
function everChanging(tools: FakeTool[], drift = false): { pack: FakePack; reads: () => number } {
  let reads = 0;
  const pack = {
    packId: 'big',
    get tools() {
      return drift ? [{ ...tools[0]!, output: { title: `read ${reads}` } }, ...tools.slice(1)] : tools;
    },
    get artifactVersion() {
      reads++;
      return `big-${reads}`;
    },
  };
  return { pack, reads: () => reads };
}

let remote: FakePackService | undefined;

afterEach(async () => {
  await stopAllServers();
  await remote?.close();
  remote = undefined;
  cleanupTempDirs();
});

async function serve(label: string, minRefreshMs: number, published: FakePack): Promise<RunningServer> {
  remote = await startFakePackService(published, () => ({ v: 2, kind: 'result', output: { ok: true } }), PACK_TOKEN);
  const root = makeTempDir(label);
  return startServer(
    writeConfig(root, join(root, 'data'), {
      tokens: [{ token: TOKEN, tenantId: 'tenant-refresh' }],
      packs: [{ url: remote.url, token: PACK_TOKEN, pollMs: 200, minRefreshMs }],
    }),
  );
}

/** Resolves once `done` holds, looking every 50 ms: a wait for an event, bounded. */
async function until(done: () => boolean, what: string, limitMs = 120_000): Promise<void> {
  const started = Date.now();
  while (!done()) {
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Calls a tool one call after another until `done` holds; the slowest call's milliseconds. */
async function callWhile(server: RunningServer, done: () => boolean): Promise<{ calls: number; slowestMs: number }> {
  let calls = 0;
  let slowestMs = 0;
  while (!done()) {
    const started = performance.now();
    const answer = await api(server.url, TOKEN, 'POST', '/v1/tools/big.t1/invoke', { input: {} });
    slowestMs = Math.max(slowestMs, performance.now() - started);
    expect(answer.status).toBe(200);
    calls++;
  }
  return { calls, slowestMs };
}

const count = (server: RunningServer, event: string) => server.records.filter((r) => r.event === event).length;

describe('a remote index refreshed at most once per minRefreshMs, rebuilt only when its tools change', () => {
  it('new versions on every poll: within minRefreshMs the index is not read again, nothing reloads', async () => {
    const published = everChanging(TOOLS);
    const server = await serve('refresh-rate', 3_600_000, published.pack);
    const service = remote!;
    const readsAtStart = service.indexReads();
    const from = published.reads();
    // Twenty polls, each naming a new version.
    const { calls, slowestMs } = await callWhile(server, () => published.reads() >= from + 20);
    console.log(`versions every poll, minRefreshMs 1 h: ${calls} calls, slowest ${Math.round(slowestMs)} ms`);
    expect(service.indexReads()).toBe(readsAtStart);
    expect(count(server, 'pack-reloaded')).toBe(0);
  }, 180_000);

  it('an index read on every new version reloads only when its tools changed, once', async () => {
    // Every read serves other tools: a reload on every poll (what every version change cost before).
    const drifting = everChanging(TOOLS, true);
    const server = await serve('refresh-diff', 0, drifting.pack);
    const service = remote!;
    const churn = await callWhile(server, () => count(server, 'pack-reloaded') >= 5);
    console.log(`tools changing every poll: ${churn.calls} calls, slowest ${Math.round(churn.slowestMs)} ms`);

    // New versions, the same tools: read every poll, rebuilt never.
    service.pack = everChanging(TOOLS).pack;
    // Polls run one at a time: once a second read of the steady tools was served, the first was handled.
    const switched = service.indexReads();
    await until(() => service.indexReads() >= switched + 2, 'two reads of the steady tools');
    const reloads = count(server, 'pack-reloaded');
    const reads = service.indexReads();
    const steady = await callWhile(server, () => service.indexReads() >= reads + 5);
    console.log(`versions every poll, same tools: ${steady.calls} calls, slowest ${Math.round(steady.slowestMs)} ms`);
    expect(count(server, 'pack-reloaded')).toBe(reloads);
    expect(count(server, 'pack-remote-index-unchanged')).toBeGreaterThanOrEqual(5);

    // The tools change once: one reload, and the new tool serves; later versions with them reload nothing.
    service.pack = everChanging([...TOOLS, { id: 'big.new', version: '1.0.0' }]).pack;
    await until(() => count(server, 'pack-reloaded') === reloads + 1, 'the reload with big.new');
    const after = service.indexReads();
    await until(() => service.indexReads() >= after + 3, 'three more index reads');
    expect(count(server, 'pack-reloaded')).toBe(reloads + 1);
    expect((await api(server.url, TOKEN, 'POST', '/v1/tools/big.new/invoke', { input: {} })).status).toBe(200);
  }, 300_000);
});
