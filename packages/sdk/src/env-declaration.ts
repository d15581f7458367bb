import type { PackEnvDeclaration } from '@kindgi/protocol';
import { describe, type FieldChecker, isPlainObject } from './fields.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LISTS = ['required', 'optional'] as const;

/**
 * Checks a config's `env` with the pack protocol's rules (names that are environment variable names,
 * no `KINDGI_*` name, each name once, only `required` and `optional`), reporting every problem at once,
 * joined with `; `, as the indexer does.
 */
export function checkEnvDeclaration(check: FieldChecker, env: unknown): PackEnvDeclaration | undefined {
  if (env === undefined) return undefined;
  if (!isPlainObject(env)) {
    check.fail('env', `\`env\` must be an object with \`required\` and/or \`optional\` lists, got ${describe(env)}`);
  }
  const problems: string[] = [];
  for (const key of Object.keys(env)) {
    if (!(LISTS as readonly string[]).includes(key))
      problems.push(`\`env\` takes only \`required\` and \`optional\`, not \`${key}\``);
  }
  const seen = new Map<string, string>();
  for (const list of LISTS) {
    const names = env[list];
    if (names === undefined) continue;
    if (!Array.isArray(names)) {
      problems.push(`\`env.${list}\` must be a list of names`);
      continue;
    }
    for (const name of names) {
      if (typeof name !== 'string' || !ENV_NAME.test(name)) {
        problems.push(`${JSON.stringify(String(name))} in \`env.${list}\` isn't an environment variable name`);
      } else if (name.startsWith('KINDGI_')) {
        problems.push(`"${name}" in \`env.${list}\`: \`KINDGI_*\` names configure Kindgi, not the pack`);
      } else if (seen.get(name) === list) {
        problems.push(`"${name}" is listed twice in \`env.${list}\``);
      } else if (seen.has(name)) {
        problems.push(`"${name}" is in both \`env.required\` and \`env.optional\``);
      } else {
        seen.set(name, list);
      }
    }
  }
  if (problems.length > 0) check.fail('env', problems.join('; '));
  return env as PackEnvDeclaration;
}
