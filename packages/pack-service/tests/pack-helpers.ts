import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { PackIndex } from '@kindgi/protocol';
import { createPackLog } from '../src/log/log.js';
import { createPackService, type PackService, type PackServiceOptions } from '../src/service/service.js';

/** The hand-written fixture pack (plain .mjs modules and an index.json). */
export const basicPackDir = fileURLToPath(new URL('./fixtures/basic-pack/', import.meta.url));
export const basicIndexPath = `${basicPackDir}index.json`;
export const TOKEN = 'test-token-0123456789';

export function basicIndex(): PackIndex {
  return JSON.parse(readFileSync(basicIndexPath, 'utf8')) as PackIndex;
}

/** What the fixture modules share with the tests (see fixtures/basic-pack/tools/bus.mjs). */
export interface FixtureState {
  bus: import('node:events').EventEmitter;
  runs: Map<string, number>;
  gate: Promise<void> | null;
}

export async function fixtureState(): Promise<FixtureState> {
  const busUrl = new URL('./fixtures/basic-pack/tools/bus.mjs', import.meta.url).href;
  const mod = (await import(busUrl)) as { fixture: FixtureState };
  return mod.fixture;
}

export interface TestService {
  url: string;
  service: PackService;
  server: Server;
  /** Every log record the service wrote, parsed. */
  records: Record<string, unknown>[];
  /** Resolves with the first record (already written or future) matching `test`. */
  waitForRecord(test: (record: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Starts the fixture pack's service in process on 127.0.0.1, prewarmed. */
export async function startTestService(options: Partial<PackServiceOptions> = {}): Promise<TestService> {
  const records: Record<string, unknown>[] = [];
  const waiters: { test: (r: Record<string, unknown>) => boolean; resolve: (r: Record<string, unknown>) => void }[] =
    [];
  const log = createPackLog({
    level: 'debug',
    write: (line) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      records.push(record);
      for (const waiter of [...waiters]) {
        if (waiter.test(record)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(record);
        }
      }
    },
  });
  const service = createPackService({
    index: basicIndex(),
    resolveModule: (modulePath) => `${basicPackDir}${modulePath}`,
    token: TOKEN,
    env: { FIXTURE_REQUIRED: 'yes' },
    log,
    ...options,
  });
  const warmed = await service.prewarm();
  if (warmed.kind === 'err') throw new Error(warmed.error.join('; '));
  const server = createServer(service.handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    service,
    server,
    records,
    waitForRecord(test) {
      const found = records.find(test);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

/** Sends a request with the token (unless `headers` overrides it) and reads the whole reply. */
export async function call(
  url: string,
  path: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const response = await fetch(`${url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { 'kindgi-pack-token': TOKEN, 'content-type': 'application/json', ...init.headers },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Left empty: the test asserts on `text`.
  }
  return { status: response.status, headers: response.headers, text, json };
}

export const ctx = { tenantId: 't-1', runId: 'run-1' };

/** A v2 invoke body. */
export function invokeBody(id: string, input: unknown = {}, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ v: 2, kind: 'invoke', tool: { id, ...extra }, input, ctx });
}

/** A v2 check-invoke body. */
export function checkBody(id: string, config: Record<string, unknown>, trace: Record<string, unknown> = {}): string {
  return JSON.stringify({ v: 2, kind: 'check-invoke', check: { id }, config, trace });
}
