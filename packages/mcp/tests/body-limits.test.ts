import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Era, post } from './fast-lane-wire.js';
import { type McpFixture, packIndex, serveMcp, tool } from './harness.js';

const TOKEN = 'body-limits-token-0123456789';
let mcp: McpFixture;

beforeAll(async () => {
  mcp = await serveMcp({
    packs: [packIndex('acme', [tool('acme.echo', { mutating: false })])],
    tokens: { [TOKEN]: 'tenant-a' },
    tools: { 'acme.echo': (input: unknown) => input },
  });
});

afterAll(async () => {
  await mcp.close();
});

/** `{"a": {"a": … 1}}`, `levels` objects deep. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let n = 0; n < levels; n++) value = { a: value };
  return value;
}

describe.each(['modern', 'legacy'] as Era[])('a body past the limits (%s)', (era) => {
  it('nesting past 256 levels is refused as an invalid request, and the app keeps answering', async () => {
    const deep = await post(mcp.url, TOKEN, era, {
      id: 1,
      method: 'tools/call',
      params: { name: 'acme.echo', arguments: nested(1_000) },
    });
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({ error: { code: -32600, message: expect.stringContaining('256') } });
    const fine = await post(mcp.url, TOKEN, era, {
      id: 2,
      method: 'tools/call',
      params: { name: 'acme.echo', arguments: { a: nested(10) } },
    });
    expect(fine.status).toBe(200);
  });

  it('a truncated body is a parse error', async () => {
    const response = await fetch(mcp.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/ca',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32700 } });
  });
});
