import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { err, ok, type Result } from '@kindgi/protocol';

/** The supervisor's listening front: its URL, and how to close it. */
export interface FrontServer {
  readonly url: string;
  /** Stops listening and ends every open connection (held and keep-alive ones too). */
  close(): Promise<void>;
}

/** The URL of a server on `host`, an IPv6 address in brackets. */
export function frontUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Listens with `handler` on `host:port` (0: any free port); the error is why it can't. */
export async function listenFront(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  host: string,
  port: number,
): Promise<Result<FrontServer, string>> {
  const server = createServer(handler);
  const listened = await new Promise<Error | undefined>((resolve) => {
    server.once('error', resolve);
    server.listen(port, host, () => resolve(undefined));
  });
  if (listened) return err(`Cannot listen: ${listened.message}`);
  // Errors after listening (a socket error) are per connection; keep the front up.
  server.on('error', () => undefined);
  const url = frontUrl(host, (server.address() as AddressInfo).port);
  return ok({
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}
