// The shared benchmark driver: the TypeScript service's benchmark (./pack-service.mjs) and the Java
// service's (sdks/java/kindgi-pack/bench/bench.mjs) drive their services with exactly these calls.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

/**
 * One load run against an HTTP JSON endpoint.
 * @typedef {object} BenchOptions
 * @property {string} url The full URL to POST to (for a pack service: `http://127.0.0.1:<port>/v1/invoke`).
 * @property {string} [token] Sent as `kindgi-pack-token` when given.
 * @property {string} body The request body (JSON text).
 * @property {number} [connections] Keep-alive connections. Default 32.
 * @property {number} [durationSeconds] Seconds of load. Default 10.
 * @property {Record<string, string>} [headers] Extra headers.
 * @property {number} [rate] Requests per second over all connections (autocannon's `overallRate`);
 *   unset, each connection sends its next request as soon as the last is answered.
 */

/**
 * The figures of one run. Latencies are in milliseconds; `failures` counts replies that were not 2xx,
 * plus connection errors and timeouts.
 * @typedef {{requestsPerSecond: number, totalRequests: number, latencyP50Ms: number, latencyP99Ms: number, latencyMaxMs: number, failures: number}} BenchFigures
 */

/**
 * Drives an endpoint with autocannon: `connections` keep-alive connections POSTing `body` for
 * `durationSeconds`. Any pack service (TypeScript, Java, Python) can be measured with it.
 */
/** @param {BenchOptions} options @returns {Promise<BenchFigures>} */
export async function runPackBenchmark(options) {
  const result = await autocannon({
    url: options.url,
    method: 'POST',
    connections: options.connections ?? 32,
    duration: options.durationSeconds ?? 10,
    headers: {
      'content-type': 'application/json',
      ...(options.token !== undefined ? { 'kindgi-pack-token': options.token } : {}),
      ...options.headers,
    },
    body: options.body,
    ...(options.rate !== undefined ? { overallRate: options.rate } : {}),
  });
  return {
    requestsPerSecond: result.requests.average,
    totalRequests: result.requests.total,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMaxMs: result.latency.max,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

/**
 * The baseline: a minimal `node:http` server that reads a JSON body, parses it, and answers it
 * re-serialised (the least work a JSON-over-HTTP service can do per call).
 */
export async function startRawEchoServer(port = 0, host = '127.0.0.1') {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      let body;
      try {
        body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        res.writeHead(400).end();
        return;
      }
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    });
  });
  server.listen(port, host);
  await once(server, 'listening');
  const address = server.address();
  return {
    server,
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The echo workload every pack service benchmark drives (this package's, the Java service's): one object
 * schema for the tool's input and output, one request body, one token. Shared, so services in different
 * languages are measured on exactly the same calls.
 */
export const ECHO_BENCH_WORKLOAD = (() => {
  const schema = {
    type: 'object',
    properties: {
      message: { type: 'string', minLength: 1 },
      count: { type: 'integer', minimum: 0 },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['message'],
    additionalProperties: false,
  };
  const body = JSON.stringify({
    v: 2,
    kind: 'invoke',
    tool: { id: 'bench.echo' },
    input: { message: 'hello pack service', count: 3, tags: ['a', 'b', 'c'] },
    ctx: { tenantId: 't', runId: 'r' },
  });
  return Object.freeze({ toolId: 'bench.echo', schema, body, token: 'bench-token-0123456789abcdef' });
})();

/**
 * `BENCH_DURATION` (s), `BENCH_CONNECTIONS`, `BENCH_ROUNDS`: defaults 10, 32, 3. `BENCH_RATE` (requests
 * per second over all connections) offers every target the same load instead of as much as it takes:
 * CPU per request falls as a server's rate rises (more requests share an event-loop turn and a
 * syscall), so at full speed the faster target's figure is flattered.
 */
export function benchSettings(env = process.env) {
  return {
    duration: Number(env.BENCH_DURATION ?? 10),
    connections: Number(env.BENCH_CONNECTIONS ?? 32),
    rounds: Number(env.BENCH_ROUNDS ?? 3),
    rate: env.BENCH_RATE === undefined || env.BENCH_RATE === '' ? undefined : Number(env.BENCH_RATE),
  };
}

/**
 * Resolves with the `port` of the first JSON line on `stream` that `pick` accepts (default: any line
 * with a numeric `port`), then stops reading lines and lets the rest of the stream flow away unread.
 * Parsing every later line (a `call` record per request) here, in the process that also runs
 * autocannon, took load-generator CPU and drained the service's stderr pipe slowly enough to fill it,
 * which made the service's own log writes queue and cost several times more.
 */
export function portFromLines(stream, pick = (record) => typeof record.port === 'number') {
  return new Promise((resolve) => {
    const lines = createInterface({ input: stream });
    lines.on('line', (line) => {
      let record;
      try {
        record = JSON.parse(line);
      } catch {
        return; // Not a JSON line: keep reading.
      }
      if (record === null || typeof record !== 'object' || !pick(record)) return;
      lines.close();
      stream.resume();
      resolve(record.port);
    });
  });
}
