import type { RunStatus } from './runs.js';

/** Which wire surface answered a request. */
export type HttpSurface = 'v1' | 's3' | 'mcp';

/** One answered HTTP request, as `createApp` reports it. Every field is bounded (no ids, keys or raw paths). */
export interface HttpRequestEvent {
  surface: HttpSurface;
  /** The matched route template (`/v1/tools/:toolId/invoke`, `/s3/:bucket/:key?uploadId`), or `unmatched`. */
  route: string;
  /** The HTTP method; for `mcp`, the JSON-RPC method (`tools/call`, …, `other`), or the HTTP method without one. */
  method: string;
  status: number;
  durationMs: number;
  /** The request's declared body size (`content-length`), when it had one. */
  bytesIn?: number;
  /** The answer's declared body size (`content-length`), when it had one. */
  bytesOut?: number;
  /** True when the idempotency layer replayed a stored answer. */
  replayed?: boolean;
}

/** One tool call through `runHandler`: `outcome` is `ok`, a pack error code, or a transport error code. */
export interface ToolCallEvent {
  toolId: string;
  outcome: string;
  durationMs: number;
}

/** The metrics exposition a scrape answers. */
export interface MetricsScrape {
  contentType: string;
  body: string;
}

/**
 * Where `createApp` reports what it served, for a metrics backend (the server's is prom-client). Every
 * method is called on the request path: implementations must be cheap and must never throw.
 */
export interface TelemetryBinding {
  httpRequest(event: HttpRequestEvent): void;
  toolCall(event: ToolCallEvent): void;
  /** A run entered `status` (created as `queued`, then each transition). */
  runStatus(status: RunStatus): void;
  /** An SSE stream opened; the returned function is called once, when it ends for any reason. */
  sseStreamOpened(): () => void;
  /** Renders every metric, for the metrics route. Absent: the app serves no metrics route. */
  scrape?(): Promise<MetricsScrape>;
}
