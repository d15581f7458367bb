import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, EXAMPLE_PACK_DIR, groupGone, makeTempDir, readDevFile, startDev } from './dev-harness.js';

const TOOL = `import { defineTool } from '@kindgi/sdk';

export default defineTool({
  id: 'devmcp.shout',
  description: 'Shouts a word back.',
  mutating: false,
  input: { type: 'object', required: ['word'], properties: { word: { type: 'string' } }, additionalProperties: false },
  output: { type: 'object', required: ['loud'], properties: { loud: { type: 'string' } } },
  handler: async (input: { word: string }) => ({ loud: input.word.toUpperCase() }),
});
`;

/** A one-tool TypeScript pack in a temp folder (its dependencies: the example pack's, through a link). */
function writePack(): string {
  const dir = join(makeTempDir('dev-mcp'), 'pack');
  mkdirSync(join(dir, 'tools', 'shout'), { recursive: true });
  writeFileSync(
    join(dir, 'kindgi.config.ts'),
    "import { defineConfig } from '@kindgi/sdk';\n\nexport default defineConfig({ pack: { id: 'devmcp', version: '0.1.0' } });\n",
  );
  writeFileSync(join(dir, 'tools', 'shout', 'index.ts'), TOOL);
  writeFileSync(join(dir, 'package.json'), '{ "name": "devmcp", "private": true, "type": "module" }\n');
  symlinkSync(join(EXAMPLE_PACK_DIR, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

async function connect(url: string, token: string, mode: 'legacy' | { pin: '2026-07-28' }): Promise<Client> {
  const client = new Client({ name: 'dev-mcp-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

describe('kindgi dev serves MCP', () => {
  afterAll(cleanup);

  it('the official TypeScript client lists and calls the pack’s tool at the URL kindgi dev gives', async () => {
    const packDir = writePack();
    const dev = startDev(packDir);
    const serving = await dev.waitFor((line) => line.event === 'serving', 'serving');
    const file = readDevFile(packDir);
    // The URL the banner and the serving line name: the server dev.json records, at /mcp.
    expect(serving.mcp).toBe(`${file.url}/mcp`);
    for (const mode of ['legacy', { pin: '2026-07-28' }] as const) {
      const client = await connect(serving.mcp as string, file.token, mode);
      const { tools } = await client.listTools();
      expect(tools.map((entry) => entry.name)).toEqual(['devmcp.shout']);
      expect(tools[0]).toMatchObject({ description: 'Shouts a word back.', annotations: { readOnlyHint: true } });
      const result = await client.callTool({ name: 'devmcp.shout', arguments: { word: 'hey' } });
      expect(result.isError).not.toBe(true);
      expect(result.structuredContent).toEqual({ loud: 'HEY' });
      await client.close();
    }
    const pgid = dev.child.pid as number;
    process.kill(-pgid, 'SIGINT');
    expect(await dev.exited).toBe(0);
    expect(await groupGone(pgid)).toBe(true);
  }, 120_000);
});
