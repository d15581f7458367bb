import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '@kindgi/test-services/postgres';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  makeTempDir,
  type RunningServer,
  startServer,
  stopAllServers,
  terminate,
  writeConfig,
} from './harness.js';
import { api } from './http.js';

// A page cursor is sealed with the deployment's key, not a per-process one: behind a load balancer the next
// page may come from another server, and a restarted server still opens the cursors it issued.
const TOKEN = 'tok-cursor-sharing-0001';
const BODY = { toolId: 'acme.lookup-case', input: { caseId: 'CASE-1001' } };

type Page = { data: { runId: string }[]; hasMore: boolean; nextCursor?: string };

async function startRuns(url: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const started = await api(url, TOKEN, 'POST', '/v1/runs', BODY);
    expect(started.status, JSON.stringify(started.body)).toBe(202);
  }
}

/** The first page (one run) from `url`, with its cursor. */
async function firstPage(url: string): Promise<Page & { nextCursor: string }> {
  const page = await api(url, TOKEN, 'GET', '/v1/runs?limit=1');
  expect(page.status, JSON.stringify(page.body)).toBe(200);
  const body = page.body as Page;
  expect(body.nextCursor).toEqual(expect.any(String));
  return body as Page & { nextCursor: string };
}

/** The page after `cursor`, from `url`: it must be accepted and move on past `first`. */
async function expectContinues(url: string, cursor: string, first: Page): Promise<void> {
  const next = await api(url, TOKEN, 'GET', `/v1/runs?limit=1&cursor=${encodeURIComponent(cursor)}`);
  expect(next.status, JSON.stringify(next.body)).toBe(200);
  const runs = (next.body as Page).data;
  expect(runs).toHaveLength(1);
  expect(runs[0]?.runId).not.toBe(first.data[0]?.runId);
}

function configFor(label: string, extra: Record<string, unknown>): string {
  const dir = makeTempDir(`cursor-${label}`);
  return writeConfig(dir, join(dir, 'data'), { tokens: [{ token: TOKEN, tenantId: 'tenant-cursor' }], ...extra });
}

describe('page cursors across servers and restarts', () => {
  let pg: TestPostgres | undefined;

  afterAll(async () => {
    await stopAllServers();
    await pg?.stop();
    cleanupTempDirs();
  }, 120_000);

  it('a cursor from server A continues on server B of one PostgreSQL, with no cursorSecret configured', async () => {
    pg = await startPostgres();
    const database = { url: await pg.createDatabase('cursors') };
    // Started together: both race to store the deployment's key, and both must end up with the same one.
    const [a, b] = (await Promise.all([
      startServer(configFor('a', { database })),
      startServer(configFor('b', { database })),
    ])) as [RunningServer, RunningServer];
    await startRuns(a.url, 3);
    const fromA = await firstPage(a.url);
    await expectContinues(b.url, fromA.nextCursor, fromA);
    const fromB = await firstPage(b.url);
    await expectContinues(a.url, fromB.nextCursor, fromB);
  }, 180_000);

  it('a restarted embedded server accepts the cursor it issued before the restart', async () => {
    const config = configFor('embedded', {});
    const before = await startServer(config);
    await startRuns(before.url, 2);
    const page = await firstPage(before.url);
    expect((await terminate(before)).code).toBe(0);
    const after = await startServer(config);
    await expectContinues(after.url, page.nextCursor, page);
  }, 120_000);

  it("two embedded servers configured with one cursorSecret open each other's cursors", async () => {
    const cursorSecret = 'cursor-secret-shared-by-both-servers-0001';
    const a = await startServer(configFor('secret-a', { cursorSecret }));
    const b = await startServer(configFor('secret-b', {}), { env: { KINDGI_SERVER_CURSOR_SECRET: cursorSecret } });
    await startRuns(a.url, 2);
    const page = await firstPage(a.url);
    // B has no such runs, but the cursor is accepted (an empty page), not refused as forged.
    const next = await api(b.url, TOKEN, 'GET', `/v1/runs?limit=1&cursor=${encodeURIComponent(page.nextCursor)}`);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
  }, 120_000);
});
