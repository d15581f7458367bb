import type { ServerResponse } from 'node:http';
import { messageOf, parseBearer } from '@kindgi/protocol';
import type { PackMetrics } from '../service/metrics.js';
import { sendError } from './http-reply.js';
import { tokenChecker } from './token.js';

/** Where and how a pack service serves its metrics. */
export interface MetricsRouteOptions {
  /** Default `/metrics`. */
  path?: string;
  /** When set, a scrape must send `Authorization: Bearer <token>`, else 401. */
  token?: string;
  metrics: PackMetrics;
}

/** A `GET <path>` handler: the Prometheus text exposition, behind the optional bearer token. */
export function metricsRoute(options: MetricsRouteOptions): {
  path: string;
  serve(authorization: string | undefined, res: ServerResponse): void;
} {
  const matches = options.token === undefined ? undefined : tokenChecker(options.token);
  const { metrics } = options;
  return {
    path: options.path ?? '/metrics',
    serve(authorization, res) {
      if (matches !== undefined) {
        const bearer = parseBearer(authorization);
        if (bearer.kind !== 'token' || !matches(bearer.token)) {
          sendError(res, 401, 'Bad metrics token', {}, { 'www-authenticate': 'Bearer' });
          return;
        }
      }
      metrics.scrape().then(
        (text) => {
          if (res.headersSent || res.destroyed) return;
          res.writeHead(200, {
            'content-type': metrics.contentType,
            'content-length': String(Buffer.byteLength(text)),
          });
          res.end(text);
        },
        (thrown: unknown) => sendError(res, 500, messageOf(thrown)),
      );
    },
  };
}
