import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { invoke, type SuiteContext, toolCall } from '../context.js';
import { jsonHeaders } from '../http.js';
import { eventOf } from '../service-process.js';

/** Each tool outcome of protocol v2, through the fixture's tools. */
export function toolCases(context: SuiteContext): void {
  it('runs a tool and answers its result', async () => {
    const reply = await invoke(context.shared(), toolCall('conformance.echo', { message: 'hello' }));
    expect(reply.body).toEqual({ v: 2, kind: 'result', output: { message: 'hello' } });
  });

  it('resolves a named version, and refuses one the pack does not have', async () => {
    const service = context.shared();
    const named = await invoke(service, toolCall('conformance.echo', { message: 'v' }, {}, '1.0.0'));
    expect(named.body).toEqual({ v: 2, kind: 'result', output: { message: 'v' } });
    const wrong = await invoke(service, toolCall('conformance.echo', { message: 'v' }, {}, '9.9.9'));
    expect(wrong.body).toEqual({
      v: 2,
      kind: 'error',
      code: 'tool-version-mismatch',
      message: 'Tool "conformance.echo" is 1.0.0 in this pack; the caller asked for 9.9.9',
      toolId: 'conformance.echo',
    });
  });

  it('answers tool-not-in-pack for an unknown tool', async () => {
    const reply = await invoke(context.shared(), toolCall('conformance.nope', {}));
    expect(reply.body).toMatchObject({
      v: 2,
      kind: 'error',
      code: 'tool-not-in-pack',
      message: 'This pack has no tool "conformance.nope"',
    });
  });

  it('refuses invalid input with Ajv-shaped issues, before running the handler', async () => {
    const service = context.shared();
    const missing = await invoke(service, toolCall('conformance.echo', {}));
    expect(missing.body).toMatchObject({
      v: 2,
      kind: 'error',
      code: 'input-validation-failed',
      message: 'Tool "conformance.echo" input failed validation',
      toolId: 'conformance.echo',
      issues: [
        {
          instancePath: '',
          keyword: 'required',
          params: { missingProperty: 'message' },
          message: "must have required property 'message'",
        },
      ],
    });
    const extra = await invoke(service, toolCall('conformance.echo', { message: 'x', other: 1 }));
    expect(extra.body).toMatchObject({
      code: 'input-validation-failed',
      issues: [{ keyword: 'additionalProperties', params: { additionalProperty: 'other' } }],
    });
    const short = await invoke(service, toolCall('conformance.echo', { message: '' }));
    expect(short.body).toMatchObject({
      code: 'input-validation-failed',
      issues: [{ instancePath: '/message', keyword: 'minLength', params: { limit: 1 } }],
    });
  });

  it('refuses output that fails the output schema', async () => {
    const reply = await invoke(context.shared(), toolCall('conformance.bad-output', {}));
    expect(reply.body).toMatchObject({
      v: 2,
      kind: 'error',
      code: 'output-validation-failed',
      toolId: 'conformance.bad-output',
      issues: [{ instancePath: '/count', keyword: 'type' }],
    });
  });

  it('answers handler-throw with the thrown error as cause', async () => {
    const reply = await invoke(context.shared(), toolCall('conformance.throws', {}));
    expect(reply.body).toMatchObject({
      v: 2,
      kind: 'error',
      code: 'handler-throw',
      message: 'Handler for tool "conformance.throws" threw: Error: boom',
      toolId: 'conformance.throws',
      cause: { name: 'Error', message: 'boom' },
    });
  });

  it('hands the handler ctx as sent, secrets non-enumerable, and an abort signal', async () => {
    const ctx = {
      tenantId: 'tenant-9',
      runId: 'run-9',
      projectId: null,
      requestId: 'req-9',
      env: { REGION: 'eu' },
      settings: { block: { a: 1 } },
      custom: { nested: [1, 2] },
      secrets: { apiKey: 'shh' },
    };
    const reply = await invoke(context.shared(), toolCall('conformance.context', {}, ctx));
    const { secrets, ...visible } = ctx;
    expect(reply.body).toEqual({
      v: 2,
      kind: 'result',
      output: { ctx: visible, hasAbortSignal: true, secretsEnumerable: false, secrets },
    });
  });

  it('hands the handler only the secrets its needsSpec declares, naming (never valuing) the dropped ones', async () => {
    const service = context.shared();
    const ctx = { tenantId: 'tenant-9', runId: 'run-9', secrets: { apiKey: 'shh', otherKey: 'undeclared-value' } };
    const reply = await invoke(service, toolCall('conformance.context', {}, ctx));
    expect(reply.body).toMatchObject({ v: 2, kind: 'result', output: { secrets: { apiKey: 'shh' } } });
    expect((reply.body as { output: { secrets: object } }).output.secrets).toEqual({ apiKey: 'shh' });
    const dropped = await service.record((record) => eventOf(record) === 'secrets-dropped');
    expect(dropped.names).toEqual(['otherKey']);
    // The same field name as every other per-call record, so one query finds a tool's records.
    expect(dropped.toolId).toBe('conformance.context');
    expect(JSON.stringify(service.records)).not.toContain('undeclared-value');
  });

  it('fills in schema defaults, nested ones too, before the handler runs', async () => {
    const service = context.shared();
    const empty = await invoke(service, toolCall('conformance.defaults', {}));
    expect(empty.body).toEqual({
      v: 2,
      kind: 'result',
      output: { input: { greeting: 'hello', options: { count: 1 } } },
    });
    const given = await invoke(service, toolCall('conformance.defaults', { greeting: 'hi', options: { count: 5 } }));
    expect(given.body).toMatchObject({ output: { input: { greeting: 'hi', options: { count: 5 } } } });
  });

  it('keeps handler console output out of the reply', async () => {
    const service = context.shared();
    const reply = await invoke(service, toolCall('conformance.noisy', {}));
    expect(reply.body).toEqual({ v: 2, kind: 'result', output: { quiet: true } });
    const after = await invoke(service, toolCall('conformance.echo', { message: 'after noise' }));
    expect(after.body).toEqual({ v: 2, kind: 'result', output: { message: 'after noise' } });
  });

  it('answers deadline-exceeded after kindgi-timeout-ms', async () => {
    const reply = await invoke(context.shared(), toolCall('conformance.sleep', { ms: 60_000 }), {
      'kindgi-timeout-ms': '200',
    });
    expect(reply.body).toMatchObject({ v: 2, kind: 'error', code: 'deadline-exceeded', toolId: 'conformance.sleep' });
    expect((reply.body as { message: string }).message).toContain('conformance.sleep');
    expect((reply.body as { message: string }).message).toContain('passed its deadline');
  });

  it('cancels a call whose caller disconnects (outcome cancelled in the call record)', async () => {
    const service = context.shared();
    const release = join(context.dir, 'cancel-release');
    const abort = new AbortController();
    const pending = fetch(new URL('/v1/invoke', service.url), {
      method: 'POST',
      headers: jsonHeaders(service.token),
      body: JSON.stringify(toolCall('conformance.hold', { path: release })),
      signal: abort.signal,
    }).catch((error: unknown) => error);
    await service.line((line) => line === `hold: ${release}`);
    abort.abort();
    await pending;
    const record = await service.record(
      (r) => eventOf(r) === 'call' && r.id === 'conformance.hold' && r.outcome === 'cancelled',
    );
    expect(record).toMatchObject({ outcome: 'cancelled', id: 'conformance.hold' });
    writeFileSync(release, '');
  });

  it('logs a call record per call, with the trace id of its traceparent', async () => {
    const service = context.shared();
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    await invoke(service, toolCall('conformance.echo', { message: 'traced' }, { runId: 'run-traced' }), {
      traceparent: `00-${traceId}-b7ad6b7169203331-01`,
    });
    const record = await service.record((r) => eventOf(r) === 'call' && r.traceId === traceId);
    expect(record).toMatchObject({ id: 'conformance.echo', outcome: 'ok', runId: 'run-traced', tenantId: 'tenant-1' });
    expect(typeof record.durationMs).toBe('number');
  });
}
