import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseEnv } from 'node:util';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import type { CliFailure } from '../cli/output.js';

// An env file is small text; a huge one is a mistake this command should not make worse.
const MAX_ENV_FILE_BYTES = 1024 * 1024;
const PLAIN = /^[A-Za-z0-9_\-.:/+=@,%~^]*$/;

/** The `.env` line for `name=value`, quoted so `node:util`'s parseEnv (what dev and the server read) gives `value` back. */
export function envLine(name: string, value: string): string | undefined {
  const candidates = PLAIN.test(value) ? [value] : [`'${value}'`, `\`${value}\``, `"${value}"`];
  for (const rendered of candidates) {
    const line = `${name}=${rendered}`;
    if (parseEnv(line)[name] === value) return line;
  }
  return undefined;
}

async function readOptional(path: string): Promise<Result<string | undefined, CliFailure>> {
  try {
    const info = await stat(path);
    if (info.size > MAX_ENV_FILE_BYTES) {
      return err({ code: 'env-file-too-large', message: `${path} is over ${MAX_ENV_FILE_BYTES} bytes` });
    }
    return ok(await readFile(path, 'utf8'));
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return err({ code: 'env-file-unreadable', message: `cannot read ${path}: ${messageOf(cause)}` });
  }
}

/** The lines of `text` without any assignment of `name` (a quoted value spanning lines included). */
function withoutAssignments(lines: readonly string[], name: string): { kept: string[]; firstAt: number } {
  const assignment = new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=(.*)$`);
  const kept: string[] = [];
  let firstAt = -1;
  let closing: string | undefined;
  for (const line of lines) {
    if (closing !== undefined) {
      if (line.includes(closing)) closing = undefined;
      continue;
    }
    const match = assignment.exec(line);
    if (!match) {
      kept.push(line);
      continue;
    }
    if (firstAt === -1) firstAt = kept.length;
    const rest = (match[1] ?? '').trimStart();
    const quote = rest[0];
    if ((quote === '"' || quote === "'" || quote === '`') && !rest.slice(1).includes(quote)) closing = quote;
  }
  return { kept, firstAt };
}

/**
 * Sets `name` in an env file, keeping every other line: replaces its assignment in place, or appends one.
 * A new file is created with mode 0600; an existing one keeps its mode. Written to a temporary file and
 * renamed, so a reader never sees half a file.
 */
export async function setEnvFileValue(path: string, name: string, value: string): Promise<Result<void, CliFailure>> {
  const line = envLine(name, value);
  if (line === undefined) {
    return err({
      code: 'secret-value-unsupported',
      message: `the value mixes quotes and line breaks a .env file cannot hold`,
    });
  }
  const existing = await readOptional(path);
  if (existing.kind === 'err') return existing;
  const text = existing.value ?? '';
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const { kept, firstAt } = withoutAssignments(lines, name);
  if (firstAt === -1) kept.push(line);
  else kept.splice(firstAt, 0, line);
  let mode = 0o600;
  if (existing.value !== undefined) mode = (await stat(path)).mode & 0o777;
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, `${kept.join('\n')}\n`, { mode, flag: 'wx' });
    await rename(temporary, path);
    return ok(undefined);
  } catch (cause) {
    await rm(temporary, { force: true });
    return err({ code: 'env-file-unwritable', message: `cannot write ${path}: ${messageOf(cause)}` });
  }
}

/** The variable names set in the pack's `.env` and `.env.local`, sorted, each once. */
export async function envFileNames(packDir: string): Promise<Result<string[], CliFailure>> {
  const names = new Set<string>();
  for (const file of ['.env', '.env.local']) {
    const text = await readOptional(join(packDir, file));
    if (text.kind === 'err') return text;
    for (const name of Object.keys(parseEnv(text.value ?? ''))) names.add(name);
  }
  return ok([...names].sort());
}
