import { compareCodeUnits } from './canonical-json.js';
import type { PackEnvDeclaration } from './pack-index.js';
import { err, ok, type Result } from './result.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LISTS = ['required', 'optional'] as const;

/** A pack's declared env with both lists present and sorted by code unit. */
export type ResolvedPackEnv = Required<PackEnvDeclaration>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a pack's `env` declaration (`{required?, optional?}`) with the published rules: only those two
 * keys, each a list of environment variable names, no `KINDGI_*` name, no name twice. Returns both lists
 * sorted by code unit, or every refusal joined with `; `. `undefined` declares nothing. The SDK, the
 * indexer and the pack service all check declarations with this one function.
 */
export function validatePackEnvDeclaration(declaration: unknown): Result<ResolvedPackEnv, string> {
  if (declaration === undefined || declaration === null) return ok({ required: [], optional: [] });
  if (!isPlainObject(declaration)) {
    return err('`env` must be an object with `required` and/or `optional` lists of environment variable names');
  }
  const problems: string[] = [];
  for (const key of Object.keys(declaration)) {
    if (!(LISTS as readonly string[]).includes(key)) {
      problems.push(`\`env\` takes only \`required\` and \`optional\`, not \`${key}\``);
    }
  }
  const out: ResolvedPackEnv = { required: [], optional: [] };
  const seenIn = new Map<string, (typeof LISTS)[number]>();
  for (const list of LISTS) {
    const names = declaration[list];
    if (names === undefined) continue;
    if (!Array.isArray(names)) {
      problems.push(`\`env.${list}\` must be a list of names`);
      continue;
    }
    for (const name of names as unknown[]) {
      if (typeof name !== 'string' || !ENV_NAME.test(name)) {
        problems.push(`${JSON.stringify(String(name))} in \`env.${list}\` isn't an environment variable name`);
      } else if (name.startsWith('KINDGI_')) {
        problems.push(`"${name}" in \`env.${list}\`: \`KINDGI_*\` names configure Kindgi, not the pack`);
      } else if (seenIn.get(name) === list) {
        problems.push(`"${name}" is listed twice in \`env.${list}\``);
      } else if (seenIn.has(name)) {
        problems.push(`"${name}" is in both \`env.required\` and \`env.optional\``);
      } else {
        seenIn.set(name, list);
        out[list].push(name);
      }
    }
  }
  if (problems.length > 0) return err(problems.join('; '));
  out.required.sort(compareCodeUnits);
  out.optional.sort(compareCodeUnits);
  return ok(out);
}
