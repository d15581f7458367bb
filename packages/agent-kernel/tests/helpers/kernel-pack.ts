import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  composePackCall,
  createIndexAgentRegistry,
  createIndexToolRegistry,
  deadlineLayer,
  type PackCall,
  type PackCaller,
} from '@kindgi/bindings';
import { runIndexer } from '@kindgi/indexer';
import { createPackLog, createPackServiceClient, startPackService } from '@kindgi/pack-service';
import type { PackIndex } from '@kindgi/protocol';
import type { AgentKernelBindings, TurnEvent } from '../../src/index.js';
import { createOpenAiCompatibleModel } from '../../src/index.js';

const PACK_DIR = fileURLToPath(new URL('../fixtures/kt-pack/', import.meta.url));
const TOKEN = 'kt-token-0123456789abcdef';

/** The fixture pack, indexed by the real indexer and served by a real pack service on 127.0.0.1. */
export interface KernelPack {
  index: PackIndex;
  /** Every call that went down the pipeline, in order. */
  calls: PackCall[];
  /** The bindings of a turn against the model at `modelUrl` (`default`, streamed unless said). */
  bindings(
    modelUrl: string,
    model?: { stream?: boolean; timeoutMs?: number; maxRetries?: number },
  ): AgentKernelBindings;
  stop(): Promise<void>;
}

export async function startKernelPack(): Promise<KernelPack> {
  const dir = await mkdtemp(join(tmpdir(), 'kindgi-agent-kernel-'));
  const indexPath = join(dir, 'index.json');
  const indexed = await runIndexer({
    packDir: PACK_DIR,
    outputPath: indexPath,
    artifactVersion: '20260101.1',
    publishedAt: '2026-01-01T00:00:00.000Z',
  });
  if (indexed.kind === 'err') throw new Error(`${indexed.error.message}: ${JSON.stringify(indexed.error.fileErrors)}`);
  const index = JSON.parse(await readFile(indexPath, 'utf8')) as PackIndex;
  const started = await startPackService({
    indexPath,
    moduleRoot: PACK_DIR,
    port: 0,
    host: '127.0.0.1',
    token: TOKEN,
    env: {},
    log: createPackLog({ write: () => {} }),
  });
  if (started.kind === 'err') throw new Error(started.error.join('; '));
  const service = started.value;
  const client = createPackServiceClient({ url: service.url, token: TOKEN });
  const calls: PackCall[] = [];
  const transport: PackCaller = (call) => {
    if (call.kind === 'invoke') {
      const { kind: _k, packId: _p, ...invoke } = call;
      // As the server's routing does: a tool versioned only by its pack is keyed unversioned by its service.
      const own = index.tools.find((tool) => tool.id === invoke.tool.id)?.version;
      return client.invoke(own === undefined ? { ...invoke, tool: { id: invoke.tool.id } } : invoke);
    }
    const { kind: _k, packId: _p, ...check } = call;
    return client.check(check);
  };
  const record =
    (next: PackCaller): PackCaller =>
    (call) => {
      calls.push(call);
      return next(call);
    };
  const callPack = composePackCall(deadlineLayer(), record)(transport);
  return {
    index,
    calls,
    bindings: (modelUrl, model = {}) => {
      let ids = 0;
      return {
        agents: createIndexAgentRegistry([index]),
        tools: createIndexToolRegistry([index]),
        callPack,
        models: {
          get: (name) =>
            name === 'default'
              ? createOpenAiCompatibleModel({
                  baseUrl: modelUrl,
                  model: 'scripted-1',
                  apiKey: 'sk-test',
                  timeoutMs: model.timeoutMs ?? 10_000,
                  maxRetries: model.maxRetries ?? 0,
                  stream: model.stream ?? true,
                })
              : undefined,
        },
        newId: () => `approval-${++ids}`,
      };
    },
    stop: async () => {
      await client.close();
      await service.stop(0);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A turn's events, kept for the test to read, and the signal it runs under. */
export function turnIo(): { events: TurnEvent[]; onEvent: (event: TurnEvent) => void; signal: AbortSignal } {
  const events: TurnEvent[] = [];
  return { events, onEvent: (event) => events.push(event), signal: new AbortController().signal };
}

/** A tool call of the scripted model, by Kindgi tool id (mapped as the provider maps it). */
export function callOf(toolId: string, args: unknown, id?: string): { name: string; arguments: string; id?: string } {
  return {
    name: toolId.replace(/[^a-zA-Z0-9_-]/g, '_'),
    arguments: typeof args === 'string' ? args : JSON.stringify(args),
    ...(id ? { id } : {}),
  };
}
