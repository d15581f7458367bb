import packageJson from '../../package.json' with { type: 'json' };
import { readPackServiceArgv } from './argv.js';

/** What the command line asks for before any setting is read. */
export type CommandLine =
  | { kind: 'serve' }
  | { kind: 'help' }
  | { kind: 'version' }
  /** An unknown flag: exit 2 with the usage. */
  | { kind: 'usage-error'; message: string };

/** The usage text `--help` prints (stdout) and an unknown flag prints after its error (stderr). */
export const USAGE = `Usage: pack-service [--index <path>] [--module-root <dir>] [--bundle-map <path>] [--host <address>] [--token-fd <n>]

Serves a pack's tools and guardrail checks over pack protocol v2 (HTTP).

Options (relative paths resolve against the working directory):
  --index <path>        the pack's index.json (else KINDGI_PACK_INDEX, else /app/index.json)
  --module-root <dir>   where the index's module paths resolve (default: the index's directory)
  --bundle-map <path>   a build's map of the index's source paths to their bundles
  --host <address>      listen on one address (default: every interface)
  --token-fd <n>        read the pack token from inherited file descriptor n (n >= 3) instead of
                        KINDGI_PACK_SERVICE_TOKEN
  -h, --help            print this help and exit
  --version             print the version and exit

Environment:
  KINDGI_PACK_SERVICE_TOKEN              the token callers send as kindgi-pack-token (unless --token-fd)
  PORT                                   listen port (default 8080; 0 = any free port)
  KINDGI_PACK_SERVICE_MAX_CONCURRENCY    calls in flight before 503 overloaded (default 32)
  KINDGI_PACK_SERVICE_MAX_OUTPUT_BYTES   largest reply; bigger results answer output-too-large (default 10485760)
  KINDGI_PACK_ENV_CHECK                  strict (default) or warn: a missing required env name
  KINDGI_PACK_ENV_FILTER                 on (default): pack code sees only declared and platform variables
  KINDGI_PACK_SERVICE_METRICS            on: serve Prometheus metrics on the service's port (default off)
  KINDGI_PACK_SERVICE_METRICS_PATH       where (default /metrics)
  KINDGI_PACK_SERVICE_METRICS_TOKEN      a scrape must send Authorization: Bearer <token>, else 401
  KINDGI_LOG_LEVEL, KINDGI_LOG_LEVELS, KINDGI_LOG_FORMAT   logging (JSON lines on stderr)
  OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER=otlp, …  OpenTelemetry spans over OTLP/HTTP (default off)

Exit codes: 0 after a SIGTERM drain, 1 when it cannot start, 2 for a bad command line,
70 when an exception went uncaught through the service's own code.
`;

/** The package version `--version` prints. */
export const PACK_SERVICE_VERSION: string = packageJson.version;

/** Reads the flags that decide what to do; the settings themselves are `readPackServiceConfig`'s. */
export function readCommandLine(argv: readonly string[]): CommandLine {
  const first = readPackServiceArgv(argv).first;
  if (first === undefined) return { kind: 'serve' };
  return first.kind === 'unknown' ? { kind: 'usage-error', message: first.message } : first;
}
