import type { Server, ServerResponse } from 'node:http';

/** Closes an HTTP server without waiting on idle keep-alive sockets. */
export interface DrainableHttp {
  /** Stops accepting, lets requests in flight finish (up to `drainMs`), then drops what is left. */
  close(drainMs: number): Promise<void>;
}

/**
 * Tracks responses in progress. On close, each one that has not sent its headers yet answers with
 * `Connection: close`, so its socket ends with it instead of idling until the keep-alive timeout.
 */
export function drainableHttp(server: Server): DrainableHttp {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  const closeAfter = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('connection', 'close');
  };
  // Ahead of the app's own listener, which may answer synchronously.
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (draining) closeAfter(res);
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  return {
    close(drainMs) {
      draining = true;
      for (const res of inFlight) closeAfter(res);
      return new Promise((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), drainMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
