import type { LogLevel, ServerLogger } from '@kindgi/server';
import type { CliIo } from '../cli/command.js';
import { locateProblems } from './problems.js';

/** One thing `kindgi dev` tells its user: a JSON line under `--json`, else a line of text. */
export interface DevEvent {
  readonly event: string;
  readonly [field: string]: unknown;
}

/** Prints `kindgi dev`'s events, and translates the server's records into them. */
export interface DevReporter {
  /** The logger the server is started with. */
  readonly logger: ServerLogger;
  emit(event: DevEvent, text: string): void;
}

type Fields = Readonly<Record<string, unknown>>;

const list = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);
const names = (value: unknown): string => (list(value).length > 0 ? list(value).join(', ') : '(none)');

function envText(fields: Fields): string {
  const parts = [`env: loaded ${names(fields.loaded)}`];
  if (list(fields.missingRequired).length > 0) parts.push(`missing required ${names(fields.missingRequired)}`);
  if (list(fields.missingOptional).length > 0) parts.push(`missing optional ${names(fields.missingOptional)}`);
  return parts.join('; ');
}

function packOutputLine(message: string, fields: Fields): string {
  // The server's record is `[<packId>] <line>`; the terminal shows `[pack] <line>`.
  const prefix = `[${String(fields.packId)}] `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/** The event and its text for one server record, or undefined for a record `kindgi dev` does not show. */
function translate(packDir: string, level: LogLevel, event: string, message: string, fields: Fields) {
  const problems = () => locateProblems(packDir, list(fields.problems).length ? (fields.problems as unknown[]) : []);
  const indented = (lines: string[]) => lines.map((line) => `\n  ${line}`).join('');
  switch (event) {
    case 'pack-output': {
      const line = packOutputLine(message, fields);
      return { event: { event: 'pack-output', stream: fields.stream, line }, text: `[pack] ${line}` };
    }
    case 'pack-log': {
      const record = (fields.record ?? {}) as Fields;
      if (!['warn', 'error', 'fatal'].includes(String(record.level))) return undefined;
      const line = packOutputLine(message, fields);
      return { event: { event: 'pack-output', stream: 'log', line }, text: `[pack] ${line}` };
    }
    case 'pack-env':
      return { event: { event: 'env', ...fields }, text: envText(fields) };
    case 'pack-reloaded':
      return { event: { event: 'reindexed', ...fields }, text: 'reindexed: the new code serves' };
    case 'pack-restarted':
      return { event: { event: 'restarted', reason: 'env-changed' }, text: 'restarted: the env files changed' };
    case 'pack-reindex-failed': {
      const found = problems();
      const text = `reindex failed (the last good code keeps serving):${indented(found.length ? found : [message])}`;
      return { event: { event: 'reindex-failed', problems: found, message }, text };
    }
    case 'pack-boot-failed':
      // A failed swap says so itself (pack-swap-failed); the boot's own output came as `[pack]` lines.
      return undefined;
    case 'pack-swap-failed': {
      const found = problems();
      const text = `swap failed (the last good code keeps serving):${indented(found.length ? found : [message])}`;
      return { event: { event: 'swap-failed', problems: found, message }, text };
    }
    case 'pack-child-exited':
      if (fields.expected === true) return undefined;
      return {
        event: { event: 'pack-exited', exitCode: fields.exitCode },
        text: 'the pack service exited; restarting',
      };
    default:
      if (level !== 'error') return undefined;
      return { event: { event: 'error', message }, text: `error: ${message}` };
  }
}

/** `--json`: one JSON object per line on stdout; else text on stderr (stdout keeps the serving banner). */
export function createDevReporter(io: CliIo, packDir: string, json: boolean): DevReporter {
  const emit = (event: DevEvent, text: string) => {
    if (json) io.stdout(`${JSON.stringify({ time: new Date().toISOString(), ...event })}\n`);
    else io.stderr(`${text}\n`);
  };
  return {
    emit,
    logger: {
      log(level, event, message, fields = {}) {
        const shown = translate(packDir, level, event, message, fields);
        if (shown) emit(shown.event, shown.text);
      },
    },
  };
}
