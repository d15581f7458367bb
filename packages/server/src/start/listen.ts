import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { withS3Telemetry } from '@kindgi/api';
import type { BlobStorageBinding, S3CredentialBinding, TelemetryBinding } from '@kindgi/bindings';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import { createS3App } from '@kindgi/s3';
import type { ServerConfig } from '../config/config.js';
import { connectionServerOptions, limitConnections } from './connection-limits.js';
import { type DrainableHttp, drainableHttp } from './drain.js';

// `serve` is typed for HTTP/2 too; without `createServer` options it is always a node:http server.
type HttpServer = Server;
type ServeFetch = Parameters<typeof serve>[0]['fetch'];

/** The listening surfaces: the API (with `/s3`), and the S3 surface at `/` on its own port when set. */
export interface Listeners {
  readonly url: string;
  readonly s3Url?: string;
  /** Each server, to stop accepting and let requests in flight finish. */
  readonly drains: readonly DrainableHttp[];
}

/** What the listeners serve. */
export interface ListenInput {
  config: ServerConfig;
  fetch: ServeFetch;
  blobStorage: BlobStorageBinding;
  s3Credentials: S3CredentialBinding;
  s3Regions: string[];
  telemetry: TelemetryBinding | undefined;
}

function listen(server: HttpServer): Promise<string> {
  // Node answers 417 by itself to any Expect but 100-continue (an empty one too) unless this is handled:
  // serve such requests normally, as S3 does.
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
  return new Promise((resolve, reject) => {
    const onError = (cause: Error) => reject(cause);
    server.once('error', onError);
    const ready = () => {
      server.off('error', onError);
      const address = server.address() as AddressInfo;
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`http://${host}:${address.port}`);
    };
    if (server.listening) ready();
    else server.once('listening', ready);
  });
}

/**
 * Listens on `port` (and `s3.port` when set), each listener under the same connection limits (header, request,
 * keep-alive and idle timeouts, connections per client address); on a failure, closes what it opened.
 */
export async function startListeners(input: ListenInput): Promise<Result<Listeners, string[]>> {
  const { config } = input;
  const servers: HttpServer[] = [];
  const drains: DrainableHttp[] = [];
  const serverOptions = connectionServerOptions(config.connections);
  const open = async (fetch: ServeFetch, port: number) => {
    const server = serve({ fetch, port, hostname: config.host, serverOptions }) as HttpServer;
    limitConnections(server, config.connections);
    servers.push(server);
    drains.push(drainableHttp(server));
    return listen(server);
  };
  try {
    const url = await open(input.fetch, config.port);
    if (config.s3.port === undefined) return ok({ url, drains });
    const s3App = createS3App({
      blobStorage: input.blobStorage,
      s3Credentials: input.s3Credentials,
      basePath: '',
      regions: input.s3Regions,
    });
    const s3Url = await open(withS3Telemetry(s3App, input.telemetry).fetch, config.s3.port);
    return ok({ url, s3Url, drains });
  } catch (cause) {
    for (const server of servers) server.close();
    return err([`listen: ${messageOf(cause)}`]);
  }
}
