import { readFile } from 'node:fs/promises';
import {
  checkBundleMap,
  err,
  INDEX_ENVELOPE_VERSION,
  messageOf,
  ok,
  type PackIndex,
  type Result,
} from '@kindgi/protocol';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The problems that would stop a service from serving an index (its shape, not every schema rule). */
function indexProblems(value: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const field of ['packId', 'packVersion', 'artifactVersion'] as const) {
    if (typeof value[field] !== 'string' || value[field] === '')
      problems.push(`\`${field}\` must be a non-empty string`);
  }
  for (const list of ['tools', 'guardrails'] as const) {
    const entries = value[list] ?? [];
    if (!Array.isArray(entries)) {
      problems.push(`\`${list}\` must be a list`);
      continue;
    }
    const pathField = list === 'tools' ? 'modulePath' : 'checkModulePath';
    entries.forEach((entry: unknown, at) => {
      if (!isObject(entry) || typeof entry.id !== 'string' || entry.id === '') {
        problems.push(`\`${list}[${at}]\` needs a string \`id\``);
      } else if (typeof entry[pathField] !== 'string' || entry[pathField] === '') {
        problems.push(`\`${list}[${at}]\` (${entry.id}) needs a string \`${pathField}\``);
      } else if (entry.version !== undefined && typeof entry.version !== 'string') {
        problems.push(`\`${list}[${at}]\` (${entry.id}) has a \`version\` that is not a string`);
      }
    });
  }
  return problems;
}

/**
 * Reads a pack's `index.json` (envelope `v` 1). Every problem found reads "Cannot read the pack index: …".
 * Lists the runtime reads but the service doesn't (`agents`, `flows`) default to empty.
 */
export async function readPackIndexFile(path: string): Promise<Result<PackIndex, string[]>> {
  const fail = (reason: string) => `Cannot read the pack index: ${path}: ${reason}`;
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (thrown) {
    return err([fail(messageOf(thrown))]);
  }
  if (!isObject(value)) return err([fail('it is not a JSON object')]);
  if (value.v !== INDEX_ENVELOPE_VERSION) {
    return err([fail(`expected \`v\` ${INDEX_ENVELOPE_VERSION}, got ${JSON.stringify(value.v) ?? 'nothing'}`)]);
  }
  const problems = indexProblems(value);
  if (problems.length > 0) return err(problems.map(fail));
  return ok({ tools: [], guardrails: [], agents: [], flows: [], ...value } as unknown as PackIndex);
}

/**
 * Reads a bundle map: a JSON object from an index module path (`tools/echo/index.ts`) to the bundle
 * that loads in its place (`tools/echo/index.mjs`), relative to the module root. Its rules (relative
 * paths inside their roots, each source once) are protocol's `checkBundleMap`, the indexer's too.
 */
export async function readBundleMap(path: string): Promise<Result<Map<string, string>, string[]>> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (thrown) {
    return err([`Cannot read the bundle map: ${path}: ${messageOf(thrown)}`]);
  }
  const checked = checkBundleMap(value, `Cannot read the bundle map: ${path}`);
  return checked.kind === 'err' ? err([checked.error]) : ok(new Map(Object.entries(checked.value)));
}
