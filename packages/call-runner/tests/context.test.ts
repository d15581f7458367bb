import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createHandlerContext, type HandlerLogger, noopLogger, runHandler } from '../src/index.js';
import { fixture, openTool } from './helpers.js';

function recordingLogger(): HandlerLogger & { lines: unknown[][] } {
  const lines: unknown[][] = [];
  const at =
    (level: string) =>
    (message: string, fields?: unknown): void => {
      lines.push([level, message, fields]);
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('the context a handler receives', () => {
  const wireCtx = {
    tenantId: 't-1',
    runId: 'r-1',
    requestId: 'call-9',
    projectId: 'p-1',
    orgId: null,
    env: { REGION: 'eu' },
    settings: { block: { a: 1 } },
    futureField: 'kept',
    secrets: { API_KEY: 'sk-very-secret' },
  };

  it('passes the wire ctx through, with abortSignal, and hides secrets and log', async () => {
    const log = recordingLogger();
    const outcome = await runHandler({
      tool: openTool(fixture('context-probe.mjs')),
      input: { secret: 'API_KEY' },
      ctx: wireCtx,
      log,
    });
    expect(outcome.kind).toBe('ok');
    if (outcome.kind !== 'ok') return;
    const { secrets: _secrets, ...visible } = wireCtx;
    expect(outcome.value).toEqual({
      keys: [...Object.keys(visible), 'abortSignal'].sort(),
      json: { ...visible, abortSignal: {} },
      secretNames: ['API_KEY'],
      secretValue: 'sk-very-secret',
      hasLog: true,
      aborted: false,
      spreadHasSecrets: false,
    });
    expect(JSON.stringify(outcome.value)).not.toContain('sk-very-secret"}');
    expect(log.lines).toEqual([['info', 'probing', { step: 1 }]]);
  });

  it('never shows a secret value when printed or serialised', () => {
    const ctx = createHandlerContext(wireCtx);
    expect(JSON.stringify(ctx)).not.toContain('sk-very-secret');
    expect(inspect(ctx, { depth: 5 })).not.toContain('sk-very-secret');
    expect(ctx.secrets.API_KEY).toBe('sk-very-secret');
    expect(ctx.log).toBe(noopLogger);
  });

  it('does not let a handler change the caller ctx secrets', () => {
    const ctx = createHandlerContext(wireCtx);
    expect(() => {
      (ctx.secrets as Record<string, unknown>).API_KEY = 'changed';
    }).toThrow(TypeError);
    expect(wireCtx.secrets.API_KEY).toBe('sk-very-secret');
  });

  it('is idempotent: a built context passed back keeps its secrets, log and signal', () => {
    const controller = new AbortController();
    const log = recordingLogger();
    const once = createHandlerContext({ ...wireCtx, abortSignal: controller.signal }, { log });
    const twice = createHandlerContext(once);
    expect(twice.secrets).toEqual({ API_KEY: 'sk-very-secret' });
    expect(twice.log).toBe(log);
    expect(twice.abortSignal).toBe(controller.signal);
  });

  it('keeps a JSON "__proto__" key as data, never as the prototype', () => {
    const wire = JSON.parse('{"tenantId":"t","runId":"r","__proto__":{"secrets":{"X":"forged"}}}');
    const ctx = createHandlerContext({ ...wire, secrets: { X: 'real' } });
    expect(ctx.secrets).toEqual({ X: 'real' });
    expect(Object.keys(ctx)).toContain('__proto__');
  });

  it('gives every call an abortSignal, even when the caller has none', () => {
    const ctx = createHandlerContext({ tenantId: 't', runId: 'r' });
    expect(ctx.abortSignal).toBeInstanceOf(AbortSignal);
    expect(ctx.abortSignal.aborted).toBe(false);
    expect(ctx.secrets).toEqual({});
  });

  it('takes the abort signal from the options too', async () => {
    const controller = new AbortController();
    controller.abort('gone');
    const outcome = await runHandler({
      tool: openTool(fixture('wait-for-abort.mjs')),
      input: {},
      ctx: { tenantId: 't', runId: 'r' },
      abortSignal: controller.signal,
    });
    expect(outcome).toEqual({ kind: 'ok', value: { aborted: true, reason: 'gone' } });
  });

  it("delivers the caller's abort to the running handler", async () => {
    const controller = new AbortController();
    const running = runHandler({
      tool: openTool(fixture('wait-for-abort.mjs')),
      input: {},
      ctx: { tenantId: 't', runId: 'r', abortSignal: controller.signal },
    });
    controller.abort(new Error('deadline'));
    expect(await running).toEqual({ kind: 'ok', value: { aborted: true, reason: 'Error: deadline' } });
  });
});
