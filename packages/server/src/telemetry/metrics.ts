import type { HttpRequestEvent, TelemetryBinding, ToolCallEvent } from '@kindgi/bindings';
import type { SupervisorEvent } from '@kindgi/pack-service';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** prom-client behind the API's telemetry binding, plus what the server itself reports about its packs. */
export interface ServerMetrics extends TelemetryBinding {
  readonly registry: Registry;
  /** A pack supervisor's event, counted as that pack's children, swaps, restarts and held calls. */
  packEvent(packId: string, event: SupervisorEvent): void;
  /** Whether a remote pack service answered its last `/readyz` poll with 200. */
  remoteReady(packId: string, ready: boolean): void;
  /** A remote pack call that was retried after a 503 or a refused connection. */
  remoteRetry(packId: string): void;
}

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
// Tool ids are bounded by the deployed packs; the cap only guards against a registry that is not.
const MAX_TOOL_LABELS = 1000;

/** The API's series: requests, S3 bytes, replays, tool calls, runs, streams. */
function apiInstruments(registers: Registry[]) {
  const requests = new Counter({
    name: 'kindgi_http_requests_total',
    help: 'HTTP requests answered, by surface (v1, s3, mcp), route template, method (for mcp: the JSON-RPC method) and status.',
    labelNames: ['surface', 'route', 'method', 'status'],
    registers,
  });
  const requestSeconds = new Histogram({
    name: 'kindgi_http_request_duration_seconds',
    help: 'Time to the answer head, by surface, route template and method.',
    labelNames: ['surface', 'route', 'method'],
    buckets: SECONDS,
    registers,
  });
  const s3BytesIn = new Counter({
    name: 'kindgi_s3_received_bytes_total',
    help: 'Request body bytes the S3 surface received (declared Content-Length, aws-chunked framing included).',
    registers,
  });
  const s3BytesOut = new Counter({
    name: 'kindgi_s3_sent_bytes_total',
    help: 'Answer body bytes the S3 surface sent (declared Content-Length).',
    registers,
  });
  const replays = new Counter({
    name: 'kindgi_idempotency_replays_total',
    help: 'Answers replayed from the idempotency store, by route template.',
    labelNames: ['route'],
    registers,
  });
  const toolCalls = new Counter({
    name: 'kindgi_tool_calls_total',
    help: 'Tool calls through the protocol client, by tool id and outcome (ok or an error code).',
    labelNames: ['tool', 'outcome'],
    registers,
  });
  const toolSeconds = new Histogram({
    name: 'kindgi_tool_call_duration_seconds',
    help: 'Tool call latency through the protocol client, by tool id.',
    labelNames: ['tool'],
    buckets: SECONDS,
    registers,
  });
  const runs = new Counter({
    name: 'kindgi_runs_total',
    help: 'Run status transitions this server stored, by the status entered.',
    labelNames: ['status'],
    registers,
  });
  const streams = new Gauge({ name: 'kindgi_sse_streams_open', help: 'SSE streams open now.', registers });
  return { requests, requestSeconds, s3BytesIn, s3BytesOut, replays, toolCalls, toolSeconds, runs, streams };
}

/** The per-pack series: children, swaps, restarts, held calls, remote readiness and retries. */
function packInstruments(registers: Registry[]) {
  const children = new Gauge({
    name: 'kindgi_pack_children_serving',
    help: 'Pack service children serving (a swap briefly shows the draining one too), by pack.',
    labelNames: ['pack'],
    registers,
  });
  const swaps = new Counter({
    name: 'kindgi_pack_swaps_total',
    help: 'Code swaps: a new child took over from a serving one, by pack.',
    labelNames: ['pack'],
    registers,
  });
  const restarts = new Counter({
    name: 'kindgi_pack_restarts_total',
    help: 'Children restarted after exiting on their own, by pack.',
    labelNames: ['pack'],
    registers,
  });
  const held = new Gauge({
    name: 'kindgi_pack_held_calls',
    help: 'Calls the supervisor holds now while no child serves, by pack.',
    labelNames: ['pack'],
    registers,
  });
  const heldTotal = new Counter({
    name: 'kindgi_pack_calls_held_total',
    help: 'Calls the supervisor held until a child served (or gave up), by pack.',
    labelNames: ['pack'],
    registers,
  });
  const remoteReady = new Gauge({
    name: 'kindgi_pack_remote_ready',
    help: '1 when a remote pack service answered its last /readyz poll with 200, by pack.',
    labelNames: ['pack'],
    registers,
  });
  const remoteRetries = new Counter({
    name: 'kindgi_pack_remote_retries_total',
    help: 'Remote pack calls retried after a 503 or a refused connection, by pack.',
    labelNames: ['pack'],
    registers,
  });
  return { children, swaps, restarts, held, heldTotal, remoteReady, remoteRetries };
}

/** Creates the server's metrics on a registry of its own (never prom-client's global one). */
export function createServerMetrics(options: { defaultMetrics?: boolean } = {}): ServerMetrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'kindgi_server_' });
  const registers = [registry];
  const { requests, requestSeconds, s3BytesIn, s3BytesOut, replays, toolCalls, toolSeconds, runs, streams } =
    apiInstruments(registers);
  const { children, swaps, restarts, held, heldTotal, remoteReady, remoteRetries } = packInstruments(registers);
  const toolLabels = new Set<string>();
  // The pids of each pack's children that served and have not exited (a swap's old one drains meanwhile).
  const servingByPack = new Map<string, Set<number>>();
  const toolLabel = (toolId: string): string => {
    if (toolLabels.has(toolId)) return toolId;
    if (toolLabels.size >= MAX_TOOL_LABELS) return 'other';
    toolLabels.add(toolId);
    return toolId;
  };

  return {
    registry,
    httpRequest(event: HttpRequestEvent) {
      const { surface, route, method } = event;
      requests.inc({ surface, route, method, status: String(event.status) });
      requestSeconds.observe({ surface, route, method }, event.durationMs / 1000);
      if (surface === 's3') {
        if (event.bytesIn) s3BytesIn.inc(event.bytesIn);
        if (event.bytesOut && method !== 'HEAD') s3BytesOut.inc(event.bytesOut);
      }
      if (event.replayed) replays.inc({ route });
    },
    toolCall(event: ToolCallEvent) {
      const tool = toolLabel(event.toolId);
      toolCalls.inc({ tool, outcome: event.outcome });
      toolSeconds.observe({ tool }, event.durationMs / 1000);
    },
    runStatus(status) {
      runs.inc({ status });
    },
    sseStreamOpened() {
      streams.inc();
      return () => streams.dec();
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    packEvent(pack, event) {
      let serving = servingByPack.get(pack);
      if (!serving) {
        serving = new Set<number>();
        servingByPack.set(pack, serving);
        held.set({ pack }, 0);
        for (const counter of [swaps, restarts, heldTotal]) counter.inc({ pack }, 0);
      }
      if (event.kind === 'child-serving') {
        serving.add(event.pid);
        if (event.replaced !== undefined) swaps.inc({ pack });
      } else if (event.kind === 'child-exited') serving.delete(event.pid);
      else if (event.kind === 'child-spawned' && event.reason === 'restart') restarts.inc({ pack });
      else if (event.kind === 'call-held') {
        heldTotal.inc({ pack });
        held.set({ pack }, event.held);
      } else if (event.kind === 'call-released') held.set({ pack }, event.held);
      children.set({ pack }, serving.size);
    },
    remoteReady(pack, ready) {
      remoteReady.set({ pack }, ready ? 1 : 0);
    },
    remoteRetry(pack) {
      remoteRetries.inc({ pack });
    },
  };
}
