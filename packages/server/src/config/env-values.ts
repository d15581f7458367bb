import { z } from 'zod';

const quoted = (input: unknown) => JSON.stringify(input);

/** A `KINDGI_SERVER_*` variable holding a whole number (digits only). */
export function wholeNumberVariable(name: string) {
  return z
    .string()
    .regex(/^\d+$/, { error: (issue) => `${name} must be a whole number, got ${quoted(issue.input)}` })
    .transform(Number);
}

/** A `KINDGI_SERVER_*` variable holding `true` or `false`. */
export function booleanVariable(name: string) {
  return z
    .enum(['true', 'false'], { error: (issue) => `${name} must be true or false, got ${quoted(issue.input)}` })
    .transform((value) => value === 'true');
}

/** A `KINDGI_SERVER_*` variable holding JSON (its value is never quoted back: it may hold secrets). */
export function jsonVariable(name: string) {
  return z.string().transform((raw, ctx): unknown => {
    try {
      return JSON.parse(raw);
    } catch {
      ctx.issues.push({ code: 'custom', input: raw, message: `${name} must be JSON` });
      return z.NEVER;
    }
  });
}

/**
 * The value of variable `name` read with `schema`, or undefined when it is unset or empty (the config
 * file's value or the default then stands). A bad value adds its problem to `problems`.
 */
export function readVariable<T>(
  env: NodeJS.ProcessEnv,
  name: string,
  schema: z.ZodType<T, string>,
  problems: string[],
): T | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const read = schema.safeParse(raw);
  if (read.success) return read.data;
  problems.push(...read.error.issues.map((issue) => issue.message));
  return undefined;
}
