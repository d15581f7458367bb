import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type ClientRun, runPythonClient } from './s3-clients-harness.js';

/** The official TypeScript client's connection modes: the 2025 handshake, probing, and pinned 2026-07-28. */
export const TS_MODES = [
  ['legacy', 'legacy'],
  ['auto', 'auto'],
  ['pinned 2026-07-28', { pin: '2026-07-28' }],
] as const;

export type TsMode = (typeof TS_MODES)[number][1];

/** The official TypeScript client, connected to `url` with a bearer token. */
export async function connectTs(url: string, token: string, mode: TsMode): Promise<Client> {
  const client = new Client({ name: 'kindgi-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** The official Python client's modes (its default is `auto`). */
export const PY_MODES = ['legacy', 'auto', '2026-07-28'] as const;

/** Runs one case of clients/mcp_checks.py and parses the JSON line it printed. */
export async function runPythonMcp(
  args: readonly string[],
  cwd: string,
): Promise<{ run: ClientRun; result: Record<string, unknown> }> {
  const run = await runPythonClient('mcp_checks.py', args, {
    env: { PYTHONDONTWRITEBYTECODE: '1' },
    cwd,
    timeoutMs: 60_000,
  });
  if (run.code !== 0) throw new Error(`mcp_checks.py ${args[0]} failed (${run.code}):\n${run.output.slice(-6000)}`);
  const line = run.stdout.trim().split('\n').at(-1) ?? '';
  return { run, result: JSON.parse(line) as Record<string, unknown> };
}

/** A marker file's path in `scratch` for one cancel case. */
export function markerIn(scratch: string, name: string): string {
  return join(scratch, `${name}.abort`);
}
