import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { z } from 'zod';

/**
 * How long a connection may keep the server waiting, and how many one client address may hold, on every
 * listener (the API's and the S3 port's). docs/security.md says what each guarantees.
 */
export const connectionsConfigSchema = z
  .strictObject({
    /** From a connection's first byte (or a kept-alive connection's next request) to its complete header. */
    headersTimeoutMs: z.number().int().min(100).default(5_000),
    /** To receive a whole request, body included (an upload's too); 0 turns it off. */
    requestTimeoutMs: z.number().int().min(0).default(300_000),
    /** How long a kept-alive connection may wait idle for its next request. */
    keepAliveTimeoutMs: z.number().int().min(1).default(5_000),
    /** How long a client may send nothing while the server reads a request body; 0 turns it off. */
    idleTimeoutMs: z.number().int().min(0).default(30_000),
    /** Open connections one client address may hold; past it a new one is closed at once. 0: no cap. */
    maxPerAddress: z.number().int().min(0).default(256),
  })
  .refine((limits) => limits.requestTimeoutMs === 0 || limits.requestTimeoutMs >= limits.headersTimeoutMs, {
    message: 'requestTimeoutMs must be 0 or at least headersTimeoutMs',
  });

export type ConnectionLimits = z.output<typeof connectionsConfigSchema>;

/**
 * The options Node's HTTP server enforces itself. Node checks the header and request timeouts on a timer
 * (30 s by default), so the timer runs at least twice per header timeout: a half-sent header is cut within
 * 1.5× its timeout, not a timer period later.
 */
export function connectionServerOptions(limits: ConnectionLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 2))),
  };
}

/** True when a request carries no body: it has been read whole once its header has. */
function hasNoBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}

/**
 * The idle timeout covers the time the server waits on the client for a request's body, not the other way
 * round: a socket silent for `idleTimeoutMs` while its body is still arriving is destroyed, while one waiting
 * on a long tool call (up to its 15 min deadline) is not. Before a request's header is complete the header
 * timeout applies (answered 408), and between requests the keep-alive timeout.
 */
function limitIdle(server: Server, idleTimeoutMs: number): void {
  if (idleTimeoutMs === 0) return;
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (hasNoBody(request)) return;
    const { socket } = request;
    socket.setTimeout(idleTimeoutMs);
    // Once the body is in, the client waits on the server. A response that went first (an early error) has
    // already put Node's keep-alive timeout on the socket: that one stays.
    request.once('end', () => {
      if (!response.writableEnded) socket.setTimeout(0);
    });
  });
}

/**
 * Caps open connections per client address: past `max`, a new connection is destroyed as it is accepted,
 * so one client holding thousands of idle sockets cannot use up the process's file descriptors and lock
 * everyone else out. Counted on accept, released on close.
 */
function capPerAddress(server: Server, max: number): void {
  if (max === 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

/** Applies what Node does not enforce by itself: the idle timeout and the per-address cap. */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  limitIdle(server, limits.idleTimeoutMs);
  capPerAddress(server, limits.maxPerAddress);
}
