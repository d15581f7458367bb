import { DEFAULT_MAX_OUTPUT_BYTES } from '@kindgi/protocol';
import { z } from 'zod';
import { isLogLevel, LOG_LEVELS, type LogFormat, type LogLevel } from '../log/log.js';

/** The port the process entry listens on when `PORT` is unset. */
export const DEFAULT_PACK_SERVICE_PORT = 8080;
/** The concurrency cap when `KINDGI_PACK_SERVICE_MAX_CONCURRENCY` is unset. */
export const DEFAULT_MAX_CONCURRENCY = 32;

const TOKEN_RULE =
  'may hold only printable ASCII without spaces (it travels in an HTTP header). Use a random value such as `openssl rand -hex 32`.';
const PRINTABLE = /^[\x21-\x7e]+$/;
const LEVEL_NAMES = LOG_LEVELS.join(', ');

const quoted = (input: unknown) => JSON.stringify(input);
// An empty variable is an unset one; the log settings also take a blank one as unset.
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);
const unsetIfBlank = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

function orDefault<T>(schema: z.ZodType<T, string>, fallback: T, unset = unsetIfEmpty) {
  return z.preprocess(unset, schema.optional()).transform((value) => value ?? fallback);
}

const port = z
  .string()
  .refine((raw) => /^\d{1,5}$/.test(raw) && Number(raw) <= 65_535, {
    error: (issue) => `PORT must be a port number, got ${quoted(issue.input)}`,
  })
  .transform(Number);

function positiveInteger(name: string) {
  return z
    .string()
    .refine((raw) => /^\d+$/.test(raw.trim()) && Number.isSafeInteger(Number(raw.trim())) && Number(raw.trim()) >= 1, {
      error: (issue) => `${name} must be a positive integer, got ${quoted(issue.input)}`,
    })
    .transform((raw) => Number(raw.trim()));
}

function choice<const T extends readonly [string, string]>(name: string, choices: T) {
  return z.enum(choices, {
    error: (issue) => `${name} must be \`${choices[0]}\` or \`${choices[1]}\`, not ${quoted(issue.input)}`,
  });
}

/** A token that travels in an HTTP header; `name` is where it came from, for the messages. */
export function tokenSchema(name: string, missing: string) {
  return z
    .string()
    .trim()
    .min(1, { error: missing, abort: true })
    .regex(PRINTABLE, { error: `${name} ${TOKEN_RULE}` });
}

const logLevel = z
  .string()
  .refine((raw) => isLogLevel(raw.trim().toLowerCase()), {
    error: (issue) => `KINDGI_LOG_LEVEL must be one of ${LEVEL_NAMES}, not ${quoted(issue.input)}`,
  })
  .transform((raw) => raw.trim().toLowerCase() as LogLevel);

// `subsystem=level` pairs; each bad pair is its own problem, and the good ones still count.
const logLevels = z.string().transform((raw, ctx) => {
  const levels: Record<string, LogLevel> = {};
  for (const entry of raw.split(',')) {
    if (entry.trim() === '') continue;
    const [subsystem, value] = entry.split('=').map((part) => part.trim().toLowerCase());
    if (!subsystem || !value || !isLogLevel(value)) {
      ctx.issues.push({
        code: 'custom',
        input: entry,
        message: `KINDGI_LOG_LEVELS takes subsystem=level pairs (levels: ${LEVEL_NAMES}), not ${quoted(entry)}`,
      });
      continue;
    }
    levels[subsystem] = value;
  }
  return levels;
});

const logFormat = z
  .string()
  .refine((raw) => ['auto', 'json', 'pretty'].includes(raw.trim().toLowerCase()), {
    error: (issue) => `KINDGI_LOG_FORMAT must be \`auto\`, \`json\` or \`pretty\`, not ${quoted(issue.input)}`,
  })
  .transform((raw) => raw.trim().toLowerCase() as LogFormat | 'auto');

/**
 * The pack service's settings from its environment (and its token, wherever it came from), in the order
 * their problems are listed. `token` is absent when its file descriptor could not be read (that problem
 * is already named).
 */
export function packEnvSchema(token: { name: string; missing: string }) {
  return z.object({
    port: orDefault(port, DEFAULT_PACK_SERVICE_PORT),
    token: tokenSchema(token.name, token.missing).optional(),
    maxConcurrency: orDefault(positiveInteger('KINDGI_PACK_SERVICE_MAX_CONCURRENCY'), DEFAULT_MAX_CONCURRENCY),
    maxOutputBytes: orDefault(positiveInteger('KINDGI_PACK_SERVICE_MAX_OUTPUT_BYTES'), DEFAULT_MAX_OUTPUT_BYTES),
    envCheck: orDefault(choice('KINDGI_PACK_ENV_CHECK', ['strict', 'warn']), 'strict'),
    envFilter: orDefault(choice('KINDGI_PACK_ENV_FILTER', ['on', 'off']), 'on'),
    logLevel: orDefault(logLevel, 'info', unsetIfBlank),
    logLevels: orDefault(logLevels, {}),
    logFormat: orDefault(logFormat, 'auto', unsetIfBlank),
    metrics: orDefault(choice('KINDGI_PACK_SERVICE_METRICS', ['off', 'on']), 'off'),
  });
}

/** The metrics settings, read only when `KINDGI_PACK_SERVICE_METRICS=on`. */
export function metricsSchema(tokenVariable: string) {
  return z.object({
    path: z.string().refine((path) => /^\/[\x21-\x7e]*$/.test(path) && !path.includes('?'), {
      error: (issue) => `KINDGI_PACK_SERVICE_METRICS_PATH must be a path starting with /, not ${quoted(issue.input)}`,
    }),
    token: z.preprocess(unsetIfEmpty, z.string().regex(PRINTABLE, `${tokenVariable} ${TOKEN_RULE}`).optional()),
  });
}
