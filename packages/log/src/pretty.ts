/**
 * One readable line for a JSON record line (both ending in a newline): `time LEVEL [subsystem] message`,
 * then the other fields as `name=value` (strings as they are, the rest as JSON). A line break inside a
 * value is written as `\n`, so a record stays one line.
 */
export function prettyText(json: string): string {
  const { time, level, subsystem, message, severity: _severity, ...rest } = JSON.parse(json) as Record<string, unknown>;
  const extras = Object.entries(rest)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  const head = `${String(time)} ${String(level).toUpperCase().padEnd(5)} [${String(subsystem)}] ${String(message)}`;
  return `${(extras ? `${head} ${extras}` : head).replace(/\n/g, '\\n')}\n`;
}
