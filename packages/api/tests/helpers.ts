import { randomBytes } from 'node:crypto';
import { createIndexAgentRegistry } from '@kindgi/bindings';
import type { PackIndex } from '@kindgi/protocol';
import { packError } from '@kindgi/protocol';
import {
  createInMemoryBlobStorage,
  createInMemoryRunStore,
  createInMemorySecretStore,
  createInMemoryToolRegistry,
  createScriptedRunCheck,
  createScriptedRunHandler,
  createStaticTokenResolver,
  createStubAppBindings,
  type ScriptedCheck,
  type ScriptedTool,
  scriptedReply,
} from '@kindgi/testing';
import { type CreateAppInput, createApp } from '../src/index.js';

/** A key-encryption key for tests' secret stores (never a deployment's). */
export const TEST_KEYRING = { current: { id: 'test-key', key: randomBytes(32) }, previous: [] };

export const TOKEN_A = 'tok-tenant-a';
export const TOKEN_B = 'tok-tenant-b';
export const AUTH_A = { authorization: `Bearer ${TOKEN_A}` };
export const AUTH_B = { authorization: `Bearer ${TOKEN_B}` };

/** A promise with its resolve exposed, for tests that hold a call open. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export const PACK: PackIndex = {
  v: 1,
  packId: 'pack-demo',
  packVersion: '1.2.0',
  artifactVersion: 'a1',
  publishedAt: '2026-01-01T00:00:00.000Z',
  tools: [
    {
      id: 'echo',
      version: '1.2.0',
      description: 'Returns its input',
      input: { type: 'object', properties: { text: { type: 'string' } } },
      output: { type: 'object' },
      modulePath: 'tools/echo.js',
    },
    { id: 'echo', version: '1.0.0', input: true, output: true, modulePath: 'tools/echo-old.js' },
    ...['bad-input', 'throws', 'bad-output', 'too-slow', 'unavailable', 'hold'].map((id) => ({
      id,
      input: true as const,
      output: true as const,
      modulePath: `tools/${id}.js`,
    })),
  ],
  guardrails: [
    {
      id: 'no-secrets',
      kind: 'pii',
      action: { 'on-violation': 'halt' },
      severity: 'critical',
      checkModulePath: 'g.js',
    },
    {
      id: 'tone',
      kind: 'style',
      action: { 'on-violation': 'log-only' },
      severity: 'warn',
      checkId: 'tone-check',
      checkModulePath: 'g.js',
      config: { strict: false },
    },
  ],
  agents: [],
  flows: [],
};

/** Tools the scripted pack runs; `hold` waits until the test releases it (or the call is aborted). */
export function scriptedTools(
  control: { hold?: Promise<unknown>; started?: () => void; aborted?: (reason: unknown) => void } = {},
) {
  const tools: Record<string, ScriptedTool> = {
    echo: (input) => input,
    'bad-input': () =>
      scriptedReply(
        packError('input-validation-failed', 'input is invalid', {
          toolId: 'bad-input',
          issues: [{ instancePath: '/text', message: 'must be string', keyword: 'type' }],
        }),
      ),
    throws: () => {
      throw new TypeError('boom');
    },
    'bad-output': () => scriptedReply(packError('output-validation-failed', 'output is invalid', { issues: [] })),
    'too-slow': () => scriptedReply(packError('deadline-exceeded', 'took too long')),
    unavailable: () =>
      scriptedReply({ code: 'pack-unavailable', message: 'draining', status: 503, retryAfterMs: 2500 }),
    hold: async (input, call) => {
      call.signal?.addEventListener('abort', () => control.aborted?.(call.signal?.reason), { once: true });
      control.started?.();
      await control.hold;
      return input;
    },
  };
  return tools;
}

/** Checks: `no-secrets` fails when the output mentions "secret"; `tone-check` fails when it shouts. */
export const CHECKS: Record<string, ScriptedCheck> = {
  'no-secrets': (trace) => {
    const text = JSON.stringify(trace.output ?? null);
    return text.includes('secret') ? { passed: false, reason: 'output contains a secret' } : { passed: true };
  },
  'tone-check': (trace, config) => {
    const text = JSON.stringify(trace.output ?? null);
    return text.includes('!!')
      ? { passed: false, reason: `shouting (strict=${String(config.strict)})` }
      : { passed: true };
  },
};

/** An app over every in-memory binding, tenants A and B. */
export function makeApp(overrides: Partial<CreateAppInput> = {}, control: Parameters<typeof scriptedTools>[0] = {}) {
  const bindings = {
    resolveToken: createStaticTokenResolver({
      [TOKEN_A]: { tenantId: 'tenant-a', userId: 'alice' },
      [TOKEN_B]: { tenantId: 'tenant-b', userId: 'bob' },
    }),
    runHandler: createScriptedRunHandler(scriptedTools(control)),
    runCheck: createScriptedRunCheck(CHECKS),
    toolRegistry: createInMemoryToolRegistry([PACK]),
    runStore: createInMemoryRunStore(),
    blobStorage: createInMemoryBlobStorage(),
    secrets: { store: createInMemorySecretStore(TEST_KEYRING) },
    // No agents in PACK and no model: the agent and approval routes are mounted, agent runs reach the kernel.
    agents: { registry: createIndexAgentRegistry([]), models: { get: () => undefined } },
  };
  const input: CreateAppInput = { ...bindings, logger: quietLogger, ...overrides };
  return { app: createApp(input), ...bindings };
}

/** A logger that keeps what it is told, so tests can assert nothing unexpected was logged. */
export const logged: { level: string; message: string }[] = [];
export const quietLogger = {
  warn: (message: string) => void logged.push({ level: 'warn', message }),
  error: (message: string) => void logged.push({ level: 'error', message }),
};

/** The stub bindings with only what a test names; the rest throw when reached. */
export { createStubAppBindings };

/** Reads the error envelope and checks its shape. */
export async function envelope(
  response: Response,
): Promise<{ code: string; message: string; details?: Record<string, unknown>; requestId: string }> {
  const body = (await response.json()) as {
    error: { code: string; message: string; details?: Record<string, unknown>; requestId: string };
  };
  if (typeof body.error?.code !== 'string' || typeof body.error.requestId !== 'string') {
    throw new Error(`not an error envelope: ${JSON.stringify(body)}`);
  }
  return body.error;
}

export function jsonPost(body: unknown, headers: Record<string, string> = AUTH_A): RequestInit {
  return { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) };
}
