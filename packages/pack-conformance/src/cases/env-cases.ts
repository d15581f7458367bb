import { expect, it } from 'vitest';
import platformEnv from '../../../../specs/platform-env.json' with { type: 'json' };
import { invoke, type SuiteContext, toolCall } from '../context.js';
import { jsonHeaders, sendChecked } from '../http.js';
import { eventOf } from '../service-process.js';

const NAMES = [
  'CONFORMANCE_REQUIRED',
  'CONFORMANCE_OPTIONAL',
  'CONFORMANCE_UNDECLARED',
  'KINDGI_CONFORMANCE_SETTING',
  'LC_CONFORMANCE',
];

const DECLARED = new Set(['CONFORMANCE_REQUIRED', 'CONFORMANCE_OPTIONAL']);

/** Kept by every service's env filter: declared, platform (specs/platform-env.json), or Kindgi's own. */
function mayReachPackCode(name: string): boolean {
  if (DECLARED.has(name) || name.startsWith('KINDGI_') || platformEnv.names.includes(name)) return true;
  return platformEnv.prefixes.some((prefix) => name.startsWith(prefix));
}

/** The names a fixture tool reports (`env-names`, `proc-environ`); `null` where the OS has no such view. */
async function namesSeen(service: Parameters<typeof invoke>[0], tool: string): Promise<string[] | null> {
  const reply = await invoke(service, toolCall(tool, {}));
  expect(reply.body).toMatchObject({ v: 2, kind: 'result' });
  return (reply.body as { output: { names: string[] | null } }).output.names;
}

/** The declared env (`env.required` / `env.optional`) and the env filter. */
export function envCases(context: SuiteContext): void {
  const leakyEnv = (): Record<string, string> => ({
    ...context.baseEnv(),
    CONFORMANCE_OPTIONAL: 'optional-value',
    CONFORMANCE_UNDECLARED: 'secret-value',
    LC_CONFORMANCE: 'platform',
  });

  for (const [tool, how] of [
    ['conformance.env-names', "the language's own environment API (process.env, System.getenv)"],
    ['conformance.proc-environ', "the process's environment block (/proc/self/environ)"],
  ] as const) {
    it(`shows pack code, through ${how}, neither the token nor an undeclared name`, async () => {
      const service = await context.start({ env: leakyEnv() });
      const names = await namesSeen(service, tool);
      if (names === null) return; // No /proc on this OS: the language API case still runs.
      expect(names).not.toContain('KINDGI_PACK_SERVICE_TOKEN');
      expect(names).not.toContain('CONFORMANCE_UNDECLARED');
      expect(names).toEqual(
        expect.arrayContaining(['CONFORMANCE_REQUIRED', 'CONFORMANCE_OPTIONAL', 'LC_CONFORMANCE', 'PATH']),
      );
      expect(names.filter((name) => !mayReachPackCode(name))).toEqual([]);
    });

    it(`with KINDGI_PACK_ENV_FILTER=off shows undeclared names through ${how}, still never the token`, async () => {
      const service = await context.start({ env: { ...leakyEnv(), KINDGI_PACK_ENV_FILTER: 'off' } });
      const names = await namesSeen(service, tool);
      if (names === null) return;
      expect(names).toContain('CONFORMANCE_UNDECLARED');
      expect(names).not.toContain('KINDGI_PACK_SERVICE_TOKEN');
    });
  }

  const withoutRequired = (): Record<string, string> => {
    const { CONFORMANCE_REQUIRED: _dropped, ...env } = context.baseEnv();
    return env;
  };

  it('is not ready while a required name is unset (strict): 503 missing env, names only', async () => {
    const service = await context.start({ env: withoutRequired() });
    const readyz = await sendChecked(service.url, '/readyz');
    expect(readyz).toMatchObject({ status: 503, body: { error: 'missing env', missingEnv: ['CONFORMANCE_REQUIRED'] } });
    expect(readyz.headers.get('retry-after')).toBe('1');
    const call = await sendChecked(service.url, '/v1/invoke', {
      method: 'POST',
      headers: jsonHeaders(service.token),
      body: JSON.stringify(toolCall('conformance.echo', { message: 'hi' })),
    });
    expect(call).toMatchObject({ status: 503, body: { error: 'missing env', missingEnv: ['CONFORMANCE_REQUIRED'] } });
    const info = await sendChecked(service.url, '/v1/info', { headers: { 'kindgi-pack-token': service.token } });
    expect(info).toMatchObject({ status: 200, body: { missingEnv: ['CONFORMANCE_REQUIRED'] } });
  });

  it('counts an empty value as missing', async () => {
    const service = await context.start({ env: { ...context.baseEnv(), CONFORMANCE_REQUIRED: '' } });
    expect(await sendChecked(service.url, '/readyz')).toMatchObject({ status: 503, body: { error: 'missing env' } });
  });

  it('serves anyway with KINDGI_PACK_ENV_CHECK=warn, naming the missing names in info and the log', async () => {
    const service = await context.start({ env: { ...withoutRequired(), KINDGI_PACK_ENV_CHECK: 'warn' } });
    expect(await sendChecked(service.url, '/readyz')).toMatchObject({ status: 200 });
    const call = await invoke(service, toolCall('conformance.echo', { message: 'hi' }));
    expect(call.body).toMatchObject({ kind: 'result' });
    const info = await sendChecked(service.url, '/v1/info', { headers: { 'kindgi-pack-token': service.token } });
    expect(info.body).toMatchObject({ missingEnv: ['CONFORMANCE_REQUIRED'] });
    const warned = await service.record((record) => eventOf(record) === 'missing-env');
    expect(warned.names).toEqual(['CONFORMANCE_REQUIRED']);
  });

  // A service keeps its own KINDGI_* names (TypeScript) or, like the Java SDK's pack JVM (seed 004),
  // drops every one of them: pack code sees KINDGI_CONFORMANCE_SETTING as sent or not at all.
  it('drops undeclared variables before pack code loads, keeping platform names (KINDGI_* kept or dropped), logging names only', async () => {
    const env = {
      ...context.baseEnv(),
      CONFORMANCE_OPTIONAL: 'optional-value',
      CONFORMANCE_UNDECLARED: 'secret-value',
      KINDGI_CONFORMANCE_SETTING: 'kept',
      LC_CONFORMANCE: 'platform',
    };
    const service = await context.start({ env });
    const reply = await invoke(service, toolCall('conformance.process-env', { names: NAMES }));
    expect(reply.body).toMatchObject({ v: 2, kind: 'result' });
    const { KINDGI_CONFORMANCE_SETTING: setting, ...seen } = (
      reply.body as { output: { env: Record<string, unknown> } }
    ).output.env;
    expect(seen).toEqual({
      CONFORMANCE_REQUIRED: 'present',
      CONFORMANCE_OPTIONAL: 'optional-value',
      CONFORMANCE_UNDECLARED: null,
      LC_CONFORMANCE: 'platform',
    });
    expect(['kept', null]).toContain(setting);
    const dropped = await service.record((record) => eventOf(record) === 'env-dropped');
    const names = dropped.names as string[];
    expect(names).toContain('CONFORMANCE_UNDECLARED');
    expect(names.filter((name) => name !== 'CONFORMANCE_UNDECLARED' && !name.startsWith('KINDGI_'))).toEqual([]);
    expect(JSON.stringify(service.records)).not.toContain('secret-value');
  });

  it('keeps every variable with KINDGI_PACK_ENV_FILTER=off', async () => {
    const env = { ...context.baseEnv(), CONFORMANCE_UNDECLARED: 'kept-value', KINDGI_PACK_ENV_FILTER: 'off' };
    const service = await context.start({ env });
    const reply = await invoke(service, toolCall('conformance.process-env', { names: ['CONFORMANCE_UNDECLARED'] }));
    expect(reply.body).toMatchObject({ output: { env: { CONFORMANCE_UNDECLARED: 'kept-value' } } });
  });
}
