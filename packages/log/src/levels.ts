import type { LogLevel } from '@kindgi/protocol';

/** Levels in order, for the threshold check every record makes before anything is built. */
export const LEVEL_RANK: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Cloud Logging's severity names, so a platform's log viewer colours the lines. */
export const SEVERITY: Readonly<Record<LogLevel, string>> = {
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARNING',
  error: 'ERROR',
};

/**
 * The level a subsystem logs at: the longest dotted prefix of `subsystem` named in `levels` (`pack`
 * covers `pack.tool`), else `level`.
 */
export function levelFor(subsystem: string, level: LogLevel, levels: Readonly<Record<string, LogLevel>>): LogLevel {
  let best: LogLevel | undefined;
  let bestLength = -1;
  for (const [prefix, value] of Object.entries(levels)) {
    const matches = subsystem === prefix || subsystem.startsWith(`${prefix}.`);
    if (matches && prefix.length > bestLength) {
      best = value;
      bestLength = prefix.length;
    }
  }
  return best ?? level;
}
