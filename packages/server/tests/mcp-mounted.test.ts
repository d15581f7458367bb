import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from '@kindgi/api';
import { createIndexToolRegistry, type ToolCall } from '@kindgi/bindings';
import { ok, type PackIndex } from '@kindgi/protocol';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeTempDir } from './harness.js';
import { connectTs, PY_MODES, runPythonMcp } from './mcp-clients.js';
import { VENV_PYTHON } from './s3-clients-harness.js';

// createApp with the MCP face, mounted under /kindgi in a host Hono app: two tenants, each with its own
// pack, reached by the official TypeScript and Python clients through the prefix.
const TOKENS: Record<string, string> = {
  'mounted-token-a-0123456789': 'tenant-a',
  'mounted-token-b-0123456789': 'tenant-b',
};
const [TOKEN_A, TOKEN_B] = Object.keys(TOKENS) as [string, string];
const PYTHON = existsSync(VENV_PYTHON) || Boolean(process.env.CI);

function pack(packId: string, toolIds: string[]): PackIndex {
  const schema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
  return {
    v: 1,
    packId,
    packVersion: '1.0.0',
    artifactVersion: '1',
    publishedAt: '2026-01-01T00:00:00.000Z',
    tools: toolIds.map((id) => ({ id, input: schema, output: schema, modulePath: `tools/${id}.js` })),
    guardrails: [],
    agents: [],
    flows: [],
  };
}

const calls: ToolCall[] = [];
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const app = createApp({
    resolveToken: async (token) => (TOKENS[token] ? { tenantId: TOKENS[token] as string } : null),
    toolRegistry: createIndexToolRegistry({
      'tenant-a': [pack('a', ['a.one', 'a.two'])],
      'tenant-b': [pack('b', ['b.one'])],
    }),
    runHandler: async (call) => {
      calls.push(call);
      return ok({
        v: 2,
        kind: 'result',
        output: { text: `${call.ctx.tenantId}:${(call.input as { text: string }).text}` },
      } as never);
    },
    mcp: true,
  });
  const host = new Hono();
  host.route('/kindgi', app);
  const server = serve({ fetch: host.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  url = `http://127.0.0.1:${port}/kindgi/mcp`;
  close = () => new Promise<void>((resolve) => server.close(() => resolve()));
});

afterAll(async () => {
  await close();
  cleanupTempDirs();
});

describe('createApp({ mcp: true }) mounted under /kindgi', () => {
  it('gives each tenant its own tools through the official TypeScript client', async () => {
    for (const [token, tenant, own, other] of [
      [TOKEN_A, 'tenant-a', ['a.one', 'a.two'], 'b.one'],
      [TOKEN_B, 'tenant-b', ['b.one'], 'a.one'],
    ] as const) {
      const client = await connectTs(url, token, 'auto');
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(own);
      const result = await client.callTool({ name: own[0], arguments: { text: 'hi' } });
      expect(result.structuredContent).toEqual({ text: `${tenant}:hi` });
      await expect(client.callTool({ name: other, arguments: { text: 'x' } })).rejects.toMatchObject({ code: -32602 });
      await client.close();
    }
    // The pack sees the tenant, never the bearer token.
    expect(JSON.stringify(calls)).not.toContain(TOKEN_A);
  });

  it('serves the protected-resource metadata within the prefix', async () => {
    const refused = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
    const metadata = url.replace('/kindgi/mcp', '/kindgi/.well-known/oauth-protected-resource/mcp');
    expect(refused.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadata}"`);
    expect(await (await fetch(metadata)).json()).toMatchObject({ resource: url });
  });

  it.skipIf(!PYTHON).each(PY_MODES)('answers the official Python client (mode %s) for tenant b', async (mode) => {
    const cwd = makeTempDir('mcp-mounted-py');
    const listed = await runPythonMcp(['list', url, TOKEN_B, mode], cwd);
    expect(listed.result).toMatchObject({ names: ['b.one'], pages: 1 });
    const called = await runPythonMcp(['call', url, TOKEN_B, mode, 'b.one', '{"text":"py"}'], cwd);
    expect(called.result).toMatchObject({ isError: false, structured: { text: 'tenant-b:py' } });
  });
});
