import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import {
  callerOfBindings,
  composePackCall,
  createIndexToolRegistry,
  deadlineLayer,
  type PackReply,
  type RegistryPacks,
} from '@kindgi/bindings';
import { err, ok, type PackIndex } from '@kindgi/protocol';
import { createScriptedRunHandler, createStaticTokenResolver, type ScriptedTool } from '@kindgi/testing';
import { Hono } from 'hono';
import { type CreateMcpAppInput, createMcpApp, type ReadToolReply } from '../src/index.js';

/** Reads replies the way a host would (here: the pack's code and message, its issues kept). */
export const readReply: ReadToolReply = (reply: PackReply) => {
  if (reply.kind === 'err') return err({ code: reply.error.code, message: reply.error.message });
  const message = reply.value;
  if (message.kind === 'result') return ok({ output: message.output });
  if (message.kind === 'error') {
    return err({ code: message.code, message: message.message, details: { issues: message.issues } });
  }
  return err({ code: 'pack-protocol-error', message: `unexpected ${message.kind}` });
};

/** A one-tool index entry: `input`/`output` schemas as given, the rest defaulted. */
export function tool(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    description: `The ${id} tool.`,
    input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    output: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    modulePath: `tools/${id}.js`,
    ...extra,
  };
}

/** A pack index holding `tools`. */
export function packIndex(id: string, tools: Record<string, unknown>[]): PackIndex {
  return {
    v: 1,
    packId: id,
    packVersion: '1.0.0',
    artifactVersion: '1',
    publishedAt: '2026-01-01T00:00:00.000Z',
    tools,
    guardrails: [],
    agents: [],
    flows: [],
  } as unknown as PackIndex;
}

/** A served MCP app (on 127.0.0.1, port 0) over scripted tools; `prefix` mounts it under a host app. */
export interface McpFixture {
  url: string;
  origin: string;
  close(): Promise<void>;
}

export async function serveMcp(options: {
  packs: RegistryPacks;
  tools: Record<string, ScriptedTool>;
  tokens: Record<string, string>;
  prefix?: string;
  app?: Partial<CreateMcpAppInput>;
}): Promise<McpFixture> {
  const principals = Object.fromEntries(
    Object.entries(options.tokens).map(([token, tenantId]) => [token, { tenantId }]),
  );
  const callPack = composePackCall(deadlineLayer())(
    callerOfBindings(createScriptedRunHandler(options.tools), undefined),
  );
  const mcp = createMcpApp({
    resolveToken: createStaticTokenResolver(principals),
    toolRegistry: createIndexToolRegistry(options.packs),
    callPack,
    readReply,
    ...options.app,
  });
  const host = new Hono();
  host.route(options.prefix ?? '/', mcp);
  const server = serve({ fetch: host.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}${options.prefix ?? ''}/mcp`,
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
