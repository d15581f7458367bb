import { readFile } from 'node:fs/promises';

/** `YYYYMMDD` of a date, in UTC. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10).replaceAll('-', '');
}

/**
 * The default `artifactVersion`: `YYYYMMDD.N` for the UTC day of `now`, where N is one more than the
 * existing index's N when that index is from the same day, else 1.
 */
export async function nextArtifactVersion(outputPath: string, now: Date): Promise<string> {
  const day = utcDay(now);
  let previous: unknown;
  try {
    previous = (JSON.parse(await readFile(outputPath, 'utf8')) as { artifactVersion?: unknown }).artifactVersion;
  } catch {
    previous = undefined;
  }
  const match = typeof previous === 'string' ? /^(\d{8})\.(\d+)$/.exec(previous) : null;
  const n = match && match[1] === day ? Number(match[2]) + 1 : 1;
  return `${day}.${n}`;
}
