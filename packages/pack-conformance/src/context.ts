import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonHeaders, type Reply, sendChecked } from './http.js';
import {
  type ListeningService,
  newToken,
  type ServiceProcess,
  spawnService,
  startListening,
} from './service-process.js';
import type { ConformanceTarget, IndexPins } from './types.js';

/** The pins every conformance index is built with. */
export const PINS: IndexPins = { artifactVersion: 'conformance.1', publishedAt: '2026-01-02T03:04:05.678Z' };

/** A value for the fixture's required env name, so services are ready unless a case removes it. */
export const REQUIRED_ENV = { CONFORMANCE_REQUIRED: 'present' };

/** What every case group shares: the target, a scratch directory, the built index, started services. */
export interface SuiteContext {
  target: ConformanceTarget;
  dir: string;
  indexPath: string;
  /** PATH, the target's env and the fixture's required name. */
  baseEnv(): Record<string, string>;
  /** Starts a service (stopped after the suite); `env` replaces the base env when given. */
  start(options?: { env?: Record<string, string>; indexPath?: string }): Promise<ListeningService>;
  /** Spawns without waiting for `listening` (boot failures); killed after the suite. */
  spawn(options: { env: Record<string, string>; indexPath: string }): ServiceProcess;
  /** The service most cases share, started once. */
  shared(): ListeningService;
}

/** Creates the context and the hooks that build the index, start the shared service and clean up. */
export function createSuiteContext(target: ConformanceTarget): SuiteContext & {
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
} {
  const started: ServiceProcess[] = [];
  let dir = '';
  let shared: ListeningService | undefined;
  const context = {
    target,
    get dir() {
      return dir;
    },
    get indexPath() {
      return join(dir, 'index.json');
    },
    baseEnv: () => ({ PATH: process.env.PATH ?? '', ...target.env, ...REQUIRED_ENV }),
    async start(options: { env?: Record<string, string>; indexPath?: string } = {}) {
      const service = await startListening({
        command: target.command,
        indexPath: options.indexPath ?? context.indexPath,
        moduleRoot: target.packDir,
        env: options.env ?? context.baseEnv(),
        token: newToken(),
      });
      started.push(service);
      return service;
    },
    spawn(options: { env: Record<string, string>; indexPath: string }) {
      const service = spawnService({ command: target.command, moduleRoot: target.packDir, ...options });
      started.push(service);
      return service;
    },
    shared() {
      if (!shared) throw new Error('The shared service did not start (see the suite setup failure)');
      return shared;
    },
    async setUp() {
      dir = mkdtempSync(join(tmpdir(), `kindgi-conformance-${target.name}-`));
      await target.buildIndex(context.indexPath, PINS);
      shared = await context.start();
    },
    async tearDown() {
      await Promise.all(started.map((service) => service.kill()));
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
  return context;
}

/** POSTs a message to /v1/invoke and checks the reply against the specs. */
export function invoke(
  service: ListeningService,
  message: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return sendChecked(service.url, '/v1/invoke', {
    method: 'POST',
    headers: jsonHeaders(service.token, headers),
    body: JSON.stringify(message),
  });
}

/** A v2 tool call message. */
export function toolCall(id: string, input: unknown, ctx: Record<string, unknown> = {}, version?: string) {
  return {
    v: 2,
    kind: 'invoke',
    tool: version === undefined ? { id } : { id, version },
    input,
    ctx: { tenantId: 'tenant-1', runId: 'run-1', ...ctx },
  };
}

/** A v2 check message. */
export function checkCall(id: string, config: Record<string, unknown>, trace: Record<string, unknown>) {
  return {
    v: 2,
    kind: 'check-invoke',
    check: { id },
    config,
    trace: { runId: 'run-1', tenantId: 'tenant-1', ...trace },
  };
}
