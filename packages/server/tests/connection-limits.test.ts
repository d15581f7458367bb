import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  makeTempDir,
  type RunningServer,
  startServer,
  stopAllServers,
  writeConfig,
} from './harness.js';

// Short limits, so each is seen to act without waiting on the defaults.
const HEADERS_TIMEOUT_MS = 1_000;
const IDLE_TIMEOUT_MS = 1_000;
const CAP = 50;
const IDLE_SOCKETS = 2_000;

const TOKEN = 'connection-limits-token-0123';

function serverConfig(label: string, connections: Record<string, number>): string {
  const root = makeTempDir(label);
  const tokens = [{ token: TOKEN, tenantId: 'tenant-connections' }];
  return writeConfig(root, join(root, 'data'), { packs: [], s3: { port: 0 }, tokens, connections });
}

/** A raw TCP connection that sends `text` once connected, with when it closed (and what it was answered). */
function rawConnection(port: number, text: string): Promise<{ elapsedMs: number; answer: string }> {
  return new Promise((resolve) => {
    const started = performance.now();
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => {
      if (text !== '') socket.write(text);
    });
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ elapsedMs: performance.now() - started, answer }));
  });
}

/** `GET path` from another client address of the loopback range (127.0.0.2), its status. */
function getFromOtherClient(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, localAddress: '127.0.0.2', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

const portOf = (url: string) => Number(new URL(url).port);

describe('header, request and idle timeouts on every listener (dist/main.js)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    // Keep-alive and request timeouts far longer: only the timeout under test can be what closes a socket.
    const limits = {
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
      idleTimeoutMs: IDLE_TIMEOUT_MS,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 60_000,
    };
    server = await startServer(serverConfig('connection-timeouts', limits));
  }, 60_000);

  afterAll(async () => {
    await stopAllServers();
    cleanupTempDirs();
  });

  const listeners = () => [portOf(server.url), Number(server.listening.s3Port)];

  it('closes a connection that sent half a request header once the header timeout is past (408)', async () => {
    for (const port of listeners()) {
      const closed = await rawConnection(port, 'GET /healthz HTTP/1.1\r\nHost: kindgi\r\n');
      expect(closed.answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(closed.elapsedMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS * 0.9);
      expect(closed.elapsedMs).toBeLessThan(HEADERS_TIMEOUT_MS * 10);
    }
  }, 60_000);

  it('answers and closes a connection that never sends a byte the same way', async () => {
    for (const port of listeners()) {
      const closed = await rawConnection(port, '');
      expect(closed.answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(closed.elapsedMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS * 0.9);
      expect(closed.elapsedMs).toBeLessThan(HEADERS_TIMEOUT_MS * 10);
    }
  }, 60_000);

  it('closes a connection whose request body stops arriving once the idle timeout is past', async () => {
    const head = [
      'POST /v1/tools/acme.echo/invoke HTTP/1.1',
      'Host: kindgi',
      `Authorization: Bearer ${TOKEN}`,
      'Content-Type: application/json',
      'Content-Length: 100',
    ].join('\r\n');
    const closed = await rawConnection(portOf(server.url), `${head}\r\n\r\n{"input":`);
    expect(closed.answer).toBe('');
    expect(closed.elapsedMs).toBeGreaterThanOrEqual(IDLE_TIMEOUT_MS * 0.9);
    // Far below the request and keep-alive timeouts (60 s): the idle timeout cut it.
    expect(closed.elapsedMs).toBeLessThan(IDLE_TIMEOUT_MS * 5);
  }, 60_000);
});

describe('connections per client address (dist/main.js)', () => {
  let server: RunningServer;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    // A long header timeout: the idle sockets stay open on their own, so only the cap can close them.
    server = await startServer(serverConfig('connection-cap', { headersTimeoutMs: 60_000, maxPerAddress: CAP }));
    // Fewer descriptors than idle sockets: without the cap they would exhaust the server's, and nobody else
    // could connect (20,000 sockets against the default limit do the same).
    execFileSync('prlimit', ['--pid', String(server.child.pid), '--nofile=1024:1024']);
  }, 60_000);

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await stopAllServers();
    cleanupTempDirs();
  });

  it(`keeps at most ${CAP} of ${IDLE_SOCKETS} idle sockets from one address, and serves another client`, async () => {
    const port = portOf(server.url);
    let closed = 0;
    let allClosed!: () => void;
    const enoughClosed = new Promise<void>((resolve) => {
      allClosed = resolve;
    });
    // In batches well under the listen backlog (511): a connection the kernel completed but the server never
    // accepted would look open here and never close.
    for (let batch = 0; batch < IDLE_SOCKETS / 100; batch++) {
      const opened: Promise<void>[] = [];
      for (let n = 0; n < 100; n++) {
        const socket = connect(port, '127.0.0.1');
        sockets.push(socket);
        socket.on('error', () => undefined);
        socket.once('close', () => {
          closed++;
          if (closed === IDLE_SOCKETS - CAP) allClosed();
        });
        opened.push(new Promise((resolve) => socket.once('connect', () => resolve()).once('close', () => resolve())));
      }
      await Promise.all(opened);
    }
    await enoughClosed;
    expect(closed).toBe(IDLE_SOCKETS - CAP);
    expect(await getFromOtherClient(portOf(server.url), '/healthz')).toBe(200);
    // The S3 listener answers (an unsigned request is refused, but served).
    expect(await getFromOtherClient(Number(server.listening.s3Port), '/')).toBeGreaterThanOrEqual(200);
    expect(sockets.filter((socket) => !socket.destroyed && socket.readyState === 'open')).toHaveLength(CAP);
  }, 120_000);
});
