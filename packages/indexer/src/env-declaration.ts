import { compareCodeUnits, err, ok, type PackEnvDeclaration, type Result } from '@kindgi/protocol';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LISTS = ['required', 'optional'] as const;

/**
 * Checks a config's `env` declaration with the reference's rules: an object with only `required` and
 * `optional`, each a list of environment variable names, no `KINDGI_*` name, no name twice. Returns the
 * declaration with both lists sorted by code unit, or every refusal joined with `; `.
 */
export function validatePackEnvDeclaration(env: unknown): Result<Required<PackEnvDeclaration>, string> {
  if (typeof env !== 'object' || env === null || Array.isArray(env)) {
    return err('`env` must be an object with `required` and/or `optional` lists of environment variable names');
  }
  const problems: string[] = [];
  for (const key of Object.keys(env)) {
    if (!(LISTS as readonly string[]).includes(key)) {
      problems.push(`\`env\` takes only \`required\` and \`optional\`, not \`${key}\``);
    }
  }
  const out: Required<PackEnvDeclaration> = { required: [], optional: [] };
  const seenIn = new Map<string, 'required' | 'optional'>();
  for (const list of LISTS) {
    const names: unknown = (env as Record<string, unknown>)[list];
    if (names === undefined) continue;
    if (!Array.isArray(names) || names.some((name) => typeof name !== 'string')) {
      problems.push(`\`env.${list}\` must be a list of names`);
      continue;
    }
    for (const name of names as string[]) {
      if (!ENV_NAME.test(name)) {
        problems.push(`"${name}" in \`env.${list}\` isn't an environment variable name`);
        continue;
      }
      if (name.startsWith('KINDGI_')) {
        problems.push(`"${name}" in \`env.${list}\`: \`KINDGI_*\` names configure Kindgi, not the pack`);
        continue;
      }
      const earlier = seenIn.get(name);
      if (earlier === list) {
        problems.push(`"${name}" is listed twice in \`env.${list}\``);
        continue;
      }
      if (earlier !== undefined) {
        problems.push(`"${name}" is in both \`env.required\` and \`env.optional\``);
        continue;
      }
      seenIn.set(name, list);
      out[list].push(name);
    }
  }
  if (problems.length > 0) return err(problems.join('; '));
  out.required.sort(compareCodeUnits);
  out.optional.sort(compareCodeUnits);
  return ok(out);
}
