/** One structured record a pack service wrote on stderr, classified. */
export interface ServiceRecord {
  /** A `pack` lifecycle/record event name (`listening`, `call`, `boot-failed`, …), else `record`. */
  kind: string;
  /** The child's process id. */
  pid: number;
  /** The record as parsed. */
  record: Record<string, unknown>;
}

/** Bare `{kind}` lines (the legacy logger) that are taken as events; any other bare `kind` is noise. */
export const LEGACY_EVENT_KINDS: ReadonlySet<string> = new Set([
  'listening',
  'boot-failed',
  'config-invalid',
  'missing-env',
  'draining',
  'stopped',
  'call',
  'handler-finished-late',
]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Classifies one stderr line. A `pack` record takes its `event` as its kind; any other log record
 * (one with `subsystem` and `message`) is `record`; a bare legacy `{kind}` line counts only for the
 * known lifecycle kinds. Anything else (pack code printing, partial JSON) is not a record: `undefined`.
 */
export function classifyServiceLine(line: string): Omit<ServiceRecord, 'pid'> | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (!isPlainObject(parsed)) return undefined;
  if (typeof parsed.subsystem === 'string') {
    const isPackEvent = parsed.subsystem === 'pack' && typeof parsed.event === 'string' && parsed.event !== '';
    return { kind: isPackEvent ? (parsed.event as string) : 'record', record: parsed };
  }
  if (typeof parsed.kind === 'string' && LEGACY_EVENT_KINDS.has(parsed.kind)) {
    return { kind: parsed.kind, record: parsed };
  }
  return undefined;
}

/** The boot problems a `boot-failed` / `config-invalid` record lists, as strings. */
export function recordProblems(record: Record<string, unknown>): string[] {
  const problems = record.problems;
  if (Array.isArray(problems)) {
    return problems.map((problem) => (typeof problem === 'string' ? problem : JSON.stringify(problem)));
  }
  return typeof record.message === 'string' ? [record.message] : [];
}

/** The bound port of a `listening` record, when it carries a valid one. */
export function listeningPort(record: Record<string, unknown>): number | undefined {
  const port = record.port;
  return typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
}
