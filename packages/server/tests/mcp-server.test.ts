import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  makeTempDir,
  type RunningServer,
  startServer,
  stderrOf,
  stopAllServers,
  writeConfig,
} from './harness.js';
import { api } from './http.js';
import { connectTs, markerIn, PY_MODES, runPythonMcp, TS_MODES } from './mcp-clients.js';
import { copyMcpPack } from './mcp-pack.js';
import { VENV_PYTHON } from './s3-clients-harness.js';

// kindgi-server (dist/main.js, a process) serving MCP by default, reached by the official TypeScript and
// Python MCP clients: what they see is what the MCP specification says.
const TOKEN = 'mcp-server-api-token-0123456789';
const SECRET_ARGUMENT = 'argument-secret-0f9e8d7c';
const IDS = [
  'acme.case-link',
  'acme.echo',
  'acme.format-citation',
  'acme.lookup-case',
  'acme.slow-report',
  'acme.verify-citation',
  'acme.wait-abort',
];
const PYTHON = existsSync(VENV_PYTHON) || Boolean(process.env.CI);

let server: RunningServer;
let scratch: string;
let mcpUrl: string;

beforeAll(async () => {
  const root = makeTempDir('mcp');
  const pack = copyMcpPack(root);
  scratch = pack.scratch;
  const config = writeConfig(root, join(root, 'data'), {
    tokens: [{ token: TOKEN, tenantId: 'tenant-mcp' }],
    packs: [{ dir: pack.packDir, env: { ACME_API_BASE: 'https://cases.acme.invalid' } }],
    mcp: { pageSize: 3 },
    metrics: { enabled: true },
  });
  server = await startServer(config);
  await server.waitFor((record) => record.event === 'pack-child-serving', 'pack-child-serving');
  mcpUrl = `${server.url}/mcp`;
}, 120_000);

afterAll(async () => {
  await stopAllServers();
  cleanupTempDirs();
});

async function waitForMarker(path: string): Promise<number> {
  await expect.poll(() => existsSync(path), { timeout: 10_000, interval: 5 }).toBe(true);
  await expect.poll(() => readFileSync(path, 'utf8').length > 0, { timeout: 2000, interval: 5 }).toBe(true);
  return Number(readFileSync(path, 'utf8'));
}

describe.each(TS_MODES)('the official TypeScript client (%s) against kindgi-server', (name, mode) => {
  let client: Client;
  beforeAll(async () => {
    client = await connectTs(mcpUrl, TOKEN, mode);
  });
  afterAll(async () => {
    await client.close();
  });

  it('lists the pack tools over pages of three, with schemas and hints', async () => {
    const all = await client.listTools();
    expect(all.tools.map((tool) => tool.name)).toEqual(IDS);
    const first = await client.request({ method: 'tools/list', params: {} });
    expect(first.tools.map((tool) => tool.name)).toEqual(IDS.slice(0, 3));
    expect(first.nextCursor).toEqual(expect.any(String));
    const echo = all.tools.find((tool) => tool.name === 'acme.echo');
    expect(echo).toMatchObject({
      inputSchema: { type: 'object', required: ['text'] },
      outputSchema: { type: 'object', required: ['text'] },
      annotations: { readOnlyHint: true },
    });
  });

  it('calls a tool through the pack: structured output and its text mirror', async () => {
    const result = await client.callTool({ name: 'acme.echo', arguments: { text: SECRET_ARGUMENT } });
    expect(result.structuredContent).toEqual({ text: SECRET_ARGUMENT });
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ text: SECRET_ARGUMENT }) }]);
  });

  it('answers invalid input with isError and path: message issues', async () => {
    const result = await client.callTool({ name: 'acme.echo', arguments: { text: 5 } });
    expect(result.isError).toBe(true);
    const text = (result.content as { text: string }[])[0]?.text ?? '';
    expect(text).toMatch(/^input-validation-failed: /);
    expect(text).toContain('/text: must be string');
  });

  it('answers an unknown tool with JSON-RPC -32602', async () => {
    await expect(client.callTool({ name: 'acme.nope', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it("aborts the pack handler's abortSignal within 100 ms of a cancel", async () => {
    const marker = markerIn(scratch, `ts-${name}`.replaceAll(/\W/g, '-'));
    const controller = new AbortController();
    const call = client.callTool({ name: 'acme.wait-abort', arguments: { marker } }, { signal: controller.signal });
    await expect.poll(() => existsSync(`${marker}.started`), { timeout: 10_000, interval: 5 }).toBe(true);
    const cancelledAt = Date.now();
    controller.abort();
    await expect(call).rejects.toThrow();
    expect((await waitForMarker(marker)) - cancelledAt).toBeLessThan(100);
  });

  it('aborts it at the deadline a call names and answers deadline-exceeded', async () => {
    const marker = markerIn(scratch, `deadline-${name}`.replaceAll(/\W/g, '-'));
    const result = await client.callTool({
      name: 'acme.wait-abort',
      arguments: { marker },
      _meta: { 'kindgi.dev/deadlineMs': 400 },
    });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]?.text).toMatch(/^deadline-exceeded: /);
    // Timed in the pack, from its handler's start: the deadline runs from when the call arrived, just before.
    const abortedAt = await waitForMarker(marker);
    const startedAt = Number(readFileSync(`${marker}.started`, 'utf8'));
    expect(abortedAt - startedAt).toBeGreaterThan(300);
    expect(abortedAt - (startedAt + 400)).toBeLessThan(100);
  });
});

describe.skipIf(!PYTHON).each(PY_MODES)('the official Python client (mcp on PyPI, mode %s)', (mode) => {
  it('lists every tool over pages', async () => {
    const { result } = await runPythonMcp(['list', mcpUrl, TOKEN, mode], scratch);
    expect(result).toMatchObject({ names: IDS, pages: 3 });
    expect(result.first).toMatchObject({ name: 'acme.case-link', inputSchema: { type: 'object' } });
  });

  it('calls a tool: structured output, and an error as isError', async () => {
    const ok = await runPythonMcp(['call', mcpUrl, TOKEN, mode, 'acme.echo', '{"text":"py"}'], scratch);
    expect(ok.result).toEqual({ isError: false, structured: { text: 'py' }, text: '{"text":"py"}' });
    const bad = await runPythonMcp(['call', mcpUrl, TOKEN, mode, 'acme.echo', '{"text":1}'], scratch);
    expect(bad.result).toMatchObject({ isError: true, structured: null });
    expect(bad.result.text).toContain('/text: must be string');
  });

  it('gets -32602 for an unknown tool', async () => {
    const { result } = await runPythonMcp(['unknown', mcpUrl, TOKEN, mode], scratch);
    expect(result).toMatchObject({ code: -32602 });
  });

  it('cancels a call it stopped waiting for, within 100 ms in the pack', async () => {
    const marker = markerIn(scratch, `py-${mode}`);
    const args = JSON.stringify({ marker });
    const { result } = await runPythonMcp(['cancel', mcpUrl, TOKEN, mode, 'acme.wait-abort', args], scratch);
    expect(result.cancelledAt).toEqual(expect.any(Number));
    expect((await waitForMarker(marker)) - (result.cancelledAt as number)).toBeLessThan(100);
  });

  it('sees the status of a refused request (401 and the challenge)', async () => {
    const { result } = await runPythonMcp(['unauthorized', mcpUrl, TOKEN, mode], scratch);
    expect(result).toEqual({
      status: 401,
      challenge: `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`,
    });
  });
});

describe('operations', () => {
  it('counts MCP requests by JSON-RPC method and tool calls like REST ones', async () => {
    const client = await connectTs(mcpUrl, TOKEN, 'auto');
    await client.listTools();
    await client.callTool({ name: 'acme.echo', arguments: { text: 'counted' } });
    await client.close();
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(
      /kindgi_http_requests_total\{surface="mcp",route="\/mcp",method="tools\/call",status="200"\} \d+/,
    );
    expect(text).toMatch(
      /kindgi_http_requests_total\{surface="mcp",route="\/mcp",method="tools\/list",status="200"\} \d+/,
    );
    expect(text).toMatch(/kindgi_tool_calls_total\{tool="acme.echo",outcome="ok"\} \d+/);
  });

  it('never logs an argument', () => {
    expect(stderrOf(server)).not.toContain(SECRET_ARGUMENT);
  });

  it('leaves /v1 as it was', async () => {
    const reply = await api(server.url, TOKEN, 'POST', '/v1/tools/acme.echo/invoke', { input: { text: 'rest' } });
    expect(reply).toMatchObject({ status: 200, body: { output: { text: 'rest' } } });
  });
});
