import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  isAlive,
  makeTempDir,
  type RunningServer,
  startServer,
  stopAllServers,
  writeConfig,
} from './harness.js';
import { api, readRunStream } from './http.js';
import { copyExamplePack } from './pack-fixtures.js';

// The audit's reproduction: clients that ask for a ~9 MiB run output and never read it. Each stalled reader
// may hold about a socket buffer's worth in the server, beyond the one copy of the body they all share.
const TOKEN = 'tok-response-memory-0001';
const OUTPUT_CHARS = 9 * 1024 * 1024 - 4096;
const READERS = 100;
// Far above what the shared copy and 100 socket buffers need; far below the 1.5–2.4 GB the audit measured.
const GROWTH_BOUND = 400 * 1024 * 1024;
// Enough to be sure the server is writing the big body to the socket (the SSE frames before it are small).
const STARTED_BYTES = 64 * 1024;

const BIG_TOOL = `import { defineTool } from '@kindgi/sdk';
import { z } from 'zod';

export default defineTool({
  id: 'acme.big-output',
  description: 'Returns a text of the asked length.',
  inputZod: z.object({ chars: z.number().int().min(1).max(10_000_000) }),
  outputZod: z.object({ text: z.string() }),
  handler: async ({ chars }) => ({ text: 'x'.repeat(chars) }),
});
`;

/** The example pack plus a tool whose output is as big as asked. */
function bigOutputPack(root: string): string {
  const dir = copyExamplePack(root);
  mkdirSync(join(dir, 'tools', 'big-output'), { recursive: true });
  writeFileSync(join(dir, 'tools', 'big-output', 'index.ts'), BIG_TOOL);
  return dir;
}

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM). */
function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (match === null) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** Restarts the peak (VmHWM) at the current RSS, so a phase's peak is its own. */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

const open: Socket[] = [];

/** Sends `GET path` on a raw socket, reads until `minBytes` arrived, then never reads again. */
function stalledReader(url: string, path: string, minBytes: number): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  open.push(socket);
  socket.write(`GET ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\nauthorization: Bearer ${TOKEN}\r\n\r\n`);
  return new Promise((resolve, reject) => {
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received < minBytes) return;
      socket.off('data', onData);
      socket.pause();
      resolve(socket);
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`closed after ${received} bytes`)));
  });
}

/** The server's RSS growth over `run`: its peak during it less its RSS before. */
async function growthDuring(pid: number, run: () => Promise<unknown>): Promise<{ before: number; peak: number }> {
  resetPeak(pid);
  const before = memoryOf(pid, 'VmRSS');
  await run();
  return { before, peak: memoryOf(pid, 'VmHWM') };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** A server whose pack has the big tool, and a completed run of it; stopped by `afterAll`. */
async function serverWithBigRun(label: string): Promise<{ server: RunningServer; pid: number; runId: string }> {
  const root = makeTempDir(label);
  const config = writeConfig(root, join(root, 'data'), {
    tokens: [{ token: TOKEN, tenantId: 'tenant-m' }],
    packs: [{ dir: bigOutputPack(join(root, 'acme')), env: { ACME_API_BASE: 'https://cases.acme.invalid' } }],
    // Exactly the stalled readers: one stream more is refused.
    sse: { maxStreamsPerTenant: READERS },
    metrics: { enabled: true },
  });
  const server = await startServer(config);
  const started = await api(server.url, TOKEN, 'POST', '/v1/runs', {
    toolId: 'acme.big-output',
    input: { chars: OUTPUT_CHARS },
    options: { wait: true },
  });
  expect(started.status).toBe(201);
  return { server, pid: server.child.pid as number, runId: (started.body as { runId: string }).runId };
}

/** Reads the run whole, over REST and SSE: what a reader that keeps up gets. */
async function expectWholeRun(url: string, runId: string): Promise<void> {
  const whole = await api(url, TOKEN, 'GET', `/v1/runs/${runId}`);
  expect((whole.body as { output: { text: string } }).output.text).toHaveLength(OUTPUT_CHARS);
  const events = await readRunStream(url, TOKEN, runId);
  expect(events.map((event) => event.event)).toEqual(['run.started', 'run.completed']);
  expect(JSON.parse(events[1]?.data ?? 'null').output.text).toHaveLength(OUTPUT_CHARS);
}

/** The tenant holds `READERS` streams: one more is 429 `too-many-streams` with Retry-After. */
async function expectStreamCap(url: string, runId: string): Promise<void> {
  const refused = await api(url, TOKEN, 'GET', `/v1/runs/${runId}/stream`);
  expect(refused.status).toBe(429);
  expect(refused.headers.get('retry-after')).toBe('5');
  expect(refused.body).toMatchObject({ error: { code: 'too-many-streams', details: { limit: READERS } } });
}

/** Waits until the server counts no open SSE stream (the closed sockets freed their slots). */
async function untilNoStreamOpen(url: string): Promise<void> {
  for (;;) {
    const scrape = await (await fetch(`${url}/metrics`)).text();
    if (/^kindgi_sse_streams_open 0$/m.test(scrape)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// A server per case: memory freed by one case stays in the process and would hide the next one's growth.
describe('a big run output to clients that never read it (dist/main.js)', () => {
  afterEach(async () => {
    for (const socket of open.splice(0)) socket.destroy();
    await stopAllServers();
  }, 60_000);

  afterAll(() => cleanupTempDirs());

  it.each([
    ['REST', 'GET /v1/runs/{runId}', (runId: string) => `/v1/runs/${runId}`],
    ['SSE', 'GET /v1/runs/{runId}/stream', (runId: string) => `/v1/runs/${runId}/stream`],
  ])(
    `%s: %s to ${READERS} stalled readers stays within the bound`,
    async (label, _route, path) => {
      const { server, pid, runId } = await serverWithBigRun(`response-memory-${label}`);
      await expectWholeRun(server.url, runId);
      const { before, peak } = await growthDuring(pid, () =>
        Promise.all(Array.from({ length: READERS }, () => stalledReader(server.url, path(runId), STARTED_BYTES))),
      );
      process.stdout.write(`${label}: RSS ${mb(before)} before, peak ${mb(peak)} with ${READERS} stalled readers\n`);
      expect(peak - before).toBeLessThan(GROWTH_BOUND);
      if (label === 'SSE') await expectStreamCap(server.url, runId);
      for (const socket of open.splice(0)) socket.destroy();
      expect(isAlive(pid)).toBe(true);
      await untilNoStreamOpen(server.url);
      await expectWholeRun(server.url, runId);
    },
    180_000,
  );
});
