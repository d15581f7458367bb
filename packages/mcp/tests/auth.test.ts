import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpFixture, packIndex, serveMcp, tool } from './harness.js';

const TOKENS = { 'token-of-tenant-a-0123456789': 'tenant-a', 'token-of-tenant-b-0123456789': 'tenant-b' };
const [TOKEN_A, TOKEN_B] = Object.keys(TOKENS) as [string, string];
const seen: unknown[] = [];

describe.each([
  ['at the root', undefined],
  ['mounted under /kindgi', '/kindgi'],
])('the MCP face %s', (_name, prefix) => {
  let fixture: McpFixture;

  beforeAll(async () => {
    fixture = await serveMcp({
      packs: { 'tenant-a': [packIndex('a', [tool('a.only')])], 'tenant-b': [packIndex('b', [tool('b.only')])] },
      tokens: TOKENS,
      ...(prefix === undefined ? {} : { prefix }),
      tools: {
        'a.only': (input, call) => {
          seen.push(call.ctx);
          return input;
        },
        'b.only': (input) => input,
      },
    });
  });

  afterAll(async () => {
    await fixture.close();
  });

  const metadataPath = `${prefix ?? ''}/.well-known/oauth-protected-resource/mcp`;

  it('answers no token with 401, a challenge naming the metadata, and the /v1 error envelope', async () => {
    const response = await fetch(fixture.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${fixture.origin}${metadataPath}"`,
    );
    expect(await response.json()).toMatchObject({ error: { code: 'auth-missing' } });
  });

  it('answers an unknown token with 401 invalid_token', async () => {
    const response = await fetch(fixture.url, {
      method: 'POST',
      headers: { authorization: 'Bearer nope', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('serves the RFC 9728 metadata at the path-aware URL, naming this endpoint', async () => {
    const response = await fetch(`${fixture.origin}${metadataPath}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      resource: fixture.url,
      bearer_methods_supported: ['header'],
      resource_name: 'Kindgi MCP',
    });
  });

  it('answers GET and DELETE with 405 (no session to stream or end)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(fixture.url, {
        method,
        headers: { authorization: `Bearer ${TOKEN_A}`, accept: 'text/event-stream' },
      });
      expect(response.status).toBe(405);
    }
  });

  it('shows each tenant only its own tools, and calls only those; the token never reaches the pack', async () => {
    for (const [token, own, other] of [
      [TOKEN_A, 'a.only', 'b.only'],
      [TOKEN_B, 'b.only', 'a.only'],
    ] as const) {
      const client = new Client({ name: 'kindgi-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(fixture.url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      const { tools } = await client.listTools();
      expect(tools.map((entry) => entry.name)).toEqual([own]);
      await expect(client.callTool({ name: other, arguments: { text: 'x' } })).rejects.toMatchObject({
        code: -32602,
      });
      const result = await client.callTool({ name: own, arguments: { text: 'x' } });
      expect(result.structuredContent).toEqual({ text: 'x' });
      await client.close();
    }
    expect(JSON.stringify(seen)).not.toContain(TOKEN_A);
    expect(seen.at(-1)).toMatchObject({ tenantId: 'tenant-a' });
  });
});
