import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Era, expectSameWire, post, wireOf } from './fast-lane-wire.js';
import { type McpFixture, packIndex, serveMcp, tool } from './harness.js';

const TOKEN = 'fast-lane-token-0123456789';
const TOOLS = [
  tool('acme.echo', { mutating: false }),
  tool('acme.fail'),
  tool('acme.count', { input: { type: 'integer' }, output: { type: 'integer' } }),
  tool('acme.zeta'),
];
const SCRIPTS = {
  'acme.echo': (input: unknown) => input,
  'acme.fail': () => {
    throw new Error('the tool failed');
  },
  'acme.count': (input: unknown) => (input as number) + 1,
  'acme.zeta': () => ({ text: 'z' }),
};

const served: string[] = [];
let fast: McpFixture;
let sdk: McpFixture;

beforeAll(async () => {
  const common = { packs: [packIndex('acme', TOOLS)], tokens: { [TOKEN]: 'tenant-a' }, tools: SCRIPTS };
  fast = await serveMcp({
    ...common,
    app: { pageSize: 2, onFastLane: (route) => served.push(`${route.era} ${route.method}`) },
  });
  sdk = await serveMcp({ ...common, app: { pageSize: 2, fastLane: false } });
});

afterAll(async () => {
  await Promise.all([fast.close(), sdk.close()]);
});

describe.each([
  ['legacy', 'legacy', 'legacy'],
  ['auto', 'auto', 'modern'],
  ['pinned 2026-07-28', { pin: '2026-07-28' }, 'modern'],
] as const)('the official TypeScript client, %s', (_name, mode, era) => {
  it(`is answered by the fast lane for tools/list and tools/call (${era})`, async () => {
    const client = new Client({ name: 'kindgi-test', version: '1.0.0' }, { versionNegotiation: { mode } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(fast.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    served.length = 0;
    const listed = await client.listTools();
    expect(listed.tools.map((entry) => entry.name)).toEqual(['acme.count', 'acme.echo', 'acme.fail', 'acme.zeta']);
    const result = await client.callTool({ name: 'acme.echo', arguments: { text: 'hi' } });
    expect(result.structuredContent).toEqual({ text: 'hi' });
    await expect(client.callTool({ name: 'acme.nope', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    // Two list pages, the call, the unknown tool: nothing else reached the fast lane.
    expect(served).toEqual([`${era} tools/list`, `${era} tools/list`, `${era} tools/call`, `${era} tools/call`]);
    await client.close();
  });
});

const SAME_AS_SDK: Array<[string, Record<string, unknown>]> = [
  ['a call', { id: 1, method: 'tools/call', params: { name: 'acme.echo', arguments: { text: 'x' } } }],
  ['a wrapped call', { id: 'c', method: 'tools/call', params: { name: 'acme.count', arguments: { input: 2 } } }],
  ['a failing call', { id: 2, method: 'tools/call', params: { name: 'acme.fail', arguments: { text: 'x' } } }],
  ['a call to an unknown tool', { id: 3, method: 'tools/call', params: { name: 'acme.nope' } }],
  ['a first page', { id: 4, method: 'tools/list' }],
  ['a next page', { id: 5, method: 'tools/list', params: { cursor: 'YWNtZS5lY2hv' } }],
  ['a cursor it did not give', { id: 6, method: 'tools/list', params: { cursor: '%%%' } }],
];

describe.each(['modern', 'legacy'] as const)('the fast lane on the wire, %s', (era: Era) => {
  it.each(SAME_AS_SDK)('answers %s with the SDK’s messages, as one JSON body', async (_name, body) => {
    served.length = 0;
    const [fastAnswer, sdkAnswer] = [await post(fast.url, TOKEN, era, body), await post(sdk.url, TOKEN, era, body)];
    await expectSameWire(fastAnswer, sdkAnswer, 'application/json');
    expect(served).toEqual([`${era} ${body.method}`]);
  });
});

const MALFORMED: Array<[string, Era, Record<string, unknown>, Record<string, string | null>?]> = [
  ['a non-string tool name', 'modern', { id: 1, method: 'tools/call', params: { name: 5 } }],
  ['a non-string tool name', 'legacy', { id: 1, method: 'tools/call', params: { name: 5 } }],
  [
    'arguments that are not an object',
    'legacy',
    { id: 2, method: 'tools/call', params: { name: 'acme.echo', arguments: 3 } },
  ],
  ['a numeric cursor', 'modern', { id: 3, method: 'tools/list', params: { cursor: 7 } }],
  [
    'no Mcp-Name header',
    'modern',
    { id: 4, method: 'tools/call', params: { name: 'acme.echo' } },
    { 'mcp-name': null },
  ],
  [
    'a mismatched Mcp-Name',
    'modern',
    { id: 5, method: 'tools/call', params: { name: 'acme.echo' } },
    { 'mcp-name': 'acme.fail' },
  ],
  ['no Mcp-Method header', 'modern', { id: 6, method: 'tools/list' }, { 'mcp-method': null }],
  ['an unknown revision', 'modern', { id: 7, method: 'tools/list' }, { 'mcp-protocol-version': '2099-01-01' }],
  ['an Accept without JSON', 'legacy', { id: 8, method: 'tools/list' }, { accept: 'text/event-stream' }],
  [
    'an unsupported version header',
    'legacy',
    { id: 9, method: 'tools/list' },
    { 'mcp-protocol-version': '1999-01-01' },
  ],
  ['a text/plain body', 'legacy', { id: 10, method: 'tools/list' }, { 'content-type': 'text/plain' }],
];

describe('a malformed or unusual request', () => {
  it.each(MALFORMED)('with %s (%s) gets the SDK’s own answer', async (_name, era, body, headers) => {
    served.length = 0;
    const fastAnswer = await post(fast.url, TOKEN, era, body, headers);
    const sdkAnswer = await post(sdk.url, TOKEN, era, body, headers);
    expect(served).toEqual([]);
    expect(JSON.stringify((await wireOf(fastAnswer.clone())).messages)).not.toContain('"result"');
    await expectSameWire(fastAnswer, sdkAnswer);
  });
});

describe('a client that accepts only event streams (2026-07-28)', () => {
  it('gets the answer as one SSE event', async () => {
    const body = { id: 9, method: 'tools/call', params: { name: 'acme.echo', arguments: { text: 'sse' } } };
    const wire = await wireOf(await post(fast.url, TOKEN, 'modern', body, { accept: 'text/event-stream' }));
    expect(wire.type).toBe('text/event-stream');
    expect(wire.messages).toMatchObject([{ id: 9, result: { structuredContent: { text: 'sse' } } }]);
  });
});
