import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tool a fake pack publishes: its id, version and output schema (its input schema accepts anything). */
export interface FakeTool {
  id: string;
  version?: string;
  output?: unknown;
}

/** A guardrail a fake pack publishes, with the check id it names. */
export interface FakeGuardrail {
  id: string;
  checkId: string;
}

/** What a fake pack says it is: `/v1/info` and `/v1/index` are built from it. */
export interface FakePack {
  packId: string;
  artifactVersion: string;
  tools: FakeTool[];
  guardrails?: FakeGuardrail[];
}

/** One `/v1/invoke` the fake received. */
export interface FakeCall {
  toolId?: string;
  version?: string;
  checkId?: string;
}

/**
 * A pack service that is not ours: it speaks the pack protocol over real HTTP but answers whatever `reply`
 * returns, sent as is (a string is sent verbatim, so a test can send JSON no serialiser would produce).
 */
export interface FakePackService {
  readonly url: string;
  readonly token: string;
  /** Every call, in order. */
  readonly calls: FakeCall[];
  /** How many times `/v1/index` was read. */
  readonly indexReads: () => number;
  /** What it publishes now; replace it to publish another index (with another `artifactVersion`). */
  pack: FakePack;
  close(): Promise<void>;
}

type Reply = (call: FakeCall) => unknown;

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

function indexOf(pack: FakePack): Record<string, unknown> {
  return {
    v: 1,
    packId: pack.packId,
    packVersion: '1.0.0',
    artifactVersion: pack.artifactVersion,
    publishedAt: '2026-01-01T00:00:00.000Z',
    tools: pack.tools.map((tool) => ({
      id: tool.id,
      ...(tool.version === undefined ? {} : { version: tool.version }),
      input: {},
      output: tool.output ?? {},
      modulePath: `tools/${tool.id}.mjs`,
    })),
    guardrails: (pack.guardrails ?? []).map((guardrail) => ({
      id: guardrail.id,
      checkId: guardrail.checkId,
      kind: 'zero-llm',
      action: { 'on-violation': 'log-only' },
      severity: 'info',
      checkModulePath: `guardrails/${guardrail.id}.mjs`,
    })),
    agents: [],
    flows: [],
  };
}

function infoOf(pack: FakePack): Record<string, unknown> {
  return {
    protocol: 2,
    packId: pack.packId,
    packVersion: '1.0.0',
    artifactVersion: pack.artifactVersion,
    tools: pack.tools.map((tool) =>
      tool.version === undefined ? { id: tool.id } : { id: tool.id, version: tool.version },
    ),
    checks: (pack.guardrails ?? []).map((guardrail) => guardrail.checkId),
    missingEnv: [],
  };
}

function readCall(req: IncomingMessage): Promise<FakeCall> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        tool?: { id: string; version?: string };
        check?: { id: string };
      };
      resolve({
        ...(message.tool ? { toolId: message.tool.id } : {}),
        ...(message.tool?.version === undefined ? {} : { version: message.tool.version }),
        ...(message.check ? { checkId: message.check.id } : {}),
      });
    });
  });
}

/** Starts a fake pack service on 127.0.0.1 (port 0). */
export async function startFakePackService(pack: FakePack, reply: Reply, token: string): Promise<FakePackService> {
  const calls: FakeCall[] = [];
  let indexReads = 0;
  const service = { pack } as { pack: FakePack };
  const server: Server = createServer((req, res) => {
    if (req.url === '/readyz') return send(res, 200, { ready: true });
    if (req.headers['kindgi-pack-token'] !== token) return send(res, 401, { error: 'Bad pack token' });
    if (req.method === 'GET' && req.url === '/v1/info') return send(res, 200, infoOf(service.pack));
    if (req.method === 'GET' && req.url === '/v1/index') {
      indexReads++;
      return send(res, 200, indexOf(service.pack));
    }
    if (req.method === 'POST' && req.url === '/v1/invoke') {
      void readCall(req).then((call) => {
        calls.push(call);
        send(res, 200, reply(call));
      });
      return;
    }
    send(res, 404, { error: 'Not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(service, {
    url: `http://127.0.0.1:${port}`,
    token,
    calls,
    indexReads: () => indexReads,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
