import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpFixture, packIndex, serveMcp, tool } from './harness.js';

const TOKEN = 'sdk-client-token-0123456789';
const MODES = [
  ['legacy', 'legacy'],
  ['auto', 'auto'],
  ['pinned 2026-07-28', { pin: '2026-07-28' }],
] as const;

const TOOLS = [
  tool('acme.echo', { mutating: false }),
  tool('acme.fail'),
  tool('acme.delete', { mutating: true, effects: [{ kind: 'delete', destructive: true, idempotent: true }] }),
  tool('acme.count', { input: { type: 'integer' }, output: { type: 'integer' } }),
  tool('acme.zeta'),
];

const IDS = ['acme.count', 'acme.delete', 'acme.echo', 'acme.fail', 'acme.zeta'];
let fixture: McpFixture;

beforeAll(async () => {
  fixture = await serveMcp({
    packs: [packIndex('acme', TOOLS)],
    tokens: { [TOKEN]: 'tenant-a' },
    app: { pageSize: 2 },
    tools: {
      'acme.echo': (input) => input,
      'acme.fail': () => {
        throw new Error('the tool failed');
      },
      'acme.count': (input) => (input as number) + 1,
      'acme.delete': () => ({ text: 'gone' }),
      'acme.zeta': () => ({ text: 'z' }),
    },
  });
});

afterAll(async () => {
  await fixture.close();
});

async function connect(mode: (typeof MODES)[number][1]): Promise<Client> {
  const client = new Client({ name: 'kindgi-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  const transport = new StreamableHTTPClientTransport(new URL(fixture.url), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
  });
  await client.connect(transport);
  return client;
}

describe.each(MODES)('the official TypeScript client, %s', (_name, mode) => {
  let client: Client;

  beforeAll(async () => {
    client = await connect(mode);
  });

  afterAll(async () => {
    await client.close();
  });

  it('lists every tool over pages, in id order, with schemas and hints', async () => {
    // Without a cursor the client walks every page itself.
    const all = await client.listTools();
    expect(all.tools.map((entry) => entry.name)).toEqual(IDS);
    // Page by page: the first page from a plain request, then the cursors the server gave.
    const pages = [await client.request({ method: 'tools/list', params: {} })];
    while (pages.at(-1)?.nextCursor !== undefined) {
      pages.push(await client.listTools({ cursor: pages.at(-1)?.nextCursor as string }));
    }
    expect(pages.map((page) => page.tools.map((entry) => entry.name))).toEqual([
      IDS.slice(0, 2),
      IDS.slice(2, 4),
      IDS.slice(4),
    ]);
    const byName = new Map(all.tools.map((entry) => [entry.name, entry]));
    expect(byName.get('acme.echo')).toMatchObject({
      description: 'The acme.echo tool.',
      inputSchema: { type: 'object', required: ['text'] },
      outputSchema: { type: 'object', required: ['text'] },
      annotations: { readOnlyHint: true },
    });
    expect(byName.get('acme.delete')?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(byName.get('acme.fail')?.annotations).toBeUndefined();
    expect(byName.get('acme.count')?.inputSchema).toEqual({
      type: 'object',
      properties: { input: { type: 'integer' } },
      required: ['input'],
    });
  });

  it('calls a tool: structured output and its text mirror', async () => {
    const result = await client.callTool({ name: 'acme.echo', arguments: { text: 'hello' } });
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toEqual({ text: 'hello' });
    expect(result.content).toEqual([{ type: 'text', text: '{"text":"hello"}' }]);
  });

  it('wraps a non-object input and output under input and result', async () => {
    const result = await client.callTool({ name: 'acme.count', arguments: { input: 41 } });
    expect(result.structuredContent).toEqual({ result: 42 });
  });

  it('answers a failing tool with isError and the code', async () => {
    const result = await client.callTool({ name: 'acme.fail', arguments: { text: 'x' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('handler-throw: ');
  });

  it('answers an unknown tool with JSON-RPC -32602', async () => {
    await expect(client.callTool({ name: 'acme.nope', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it('refuses a cursor it did not give with -32602', async () => {
    await expect(client.listTools({ cursor: '%%%' })).rejects.toMatchObject({ code: -32602 });
  });
});
