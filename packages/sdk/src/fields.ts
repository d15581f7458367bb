import { isPackId, isZodSchema } from '@kindgi/protocol';
import { type DefinitionSource, KindgiDefinitionError } from './definition-error.js';

// Dot-separated kebab-case segments: `acme.lookup`, `conformance.checks.min-length`.
const SEGMENT = '[a-z0-9]+(?:-[a-z0-9]+)*';
const NAMESPACED_ID = new RegExp(`^${SEGMENT}(?:\\.${SEGMENT})+$`);
// Semantic Versioning 2.0.0, exact (no ranges).
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** Checks the fields of one definition, reporting the first problem with the field's name. */
export class FieldChecker {
  constructor(readonly source: DefinitionSource) {}

  fail(field: string, problem: string): never {
    throw new KindgiDefinitionError(this.source, field, problem);
  }

  /** The definition itself must be a plain object. */
  object(value: unknown, what: string): Record<string, unknown> {
    if (!isPlainObject(value)) this.fail('', `expects ${what} object, got ${describe(value)}`);
    return value;
  }

  namespacedId(value: unknown, field = 'id'): string {
    if (typeof value !== 'string' || !NAMESPACED_ID.test(value)) {
      this.fail(field, `"${field}" must be "<pack-id>.<name>" in kebab-case, got ${describe(value)}`);
    }
    return value;
  }

  packId(value: unknown, field: string): string {
    if (!isPackId(value)) {
      this.fail(field, `"${field}" must be a kebab-case pack id (like "acme" or "acme-legal"), got ${describe(value)}`);
    }
    return value;
  }

  nonEmptyString(value: unknown, field: string): string {
    if (typeof value !== 'string' || value.trim() === '') {
      this.fail(field, `"${field}" must be a non-empty string, got ${describe(value)}`);
    }
    return value;
  }

  optionalString(value: unknown, field: string): void {
    if (value !== undefined) this.nonEmptyString(value, field);
  }

  optionalSemver(value: unknown, field = 'version'): void {
    if (value === undefined) return;
    if (typeof value !== 'string' || !SEMVER.test(value)) {
      this.fail(field, `"${field}" must be an exact semantic version like "1.2.0", got ${describe(value)}`);
    }
  }

  optionalBoolean(value: unknown, field: string): void {
    if (value !== undefined && typeof value !== 'boolean') {
      this.fail(field, `"${field}" must be true or false, got ${describe(value)}`);
    }
  }

  optionalObject(value: unknown, field: string): void {
    if (value !== undefined && !isPlainObject(value)) {
      this.fail(field, `"${field}" must be an object, got ${describe(value)}`);
    }
  }

  optionalStringList(value: unknown, field: string): void {
    if (value === undefined) return;
    if (!Array.isArray(value)) this.fail(field, `"${field}" must be a list of strings, got ${describe(value)}`);
    value.forEach((item, index) => {
      if (typeof item !== 'string' || item === '') {
        this.fail(`${field}[${index}]`, `"${field}[${index}]" must be a non-empty string, got ${describe(item)}`);
      }
    });
  }

  oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      this.fail(field, `"${field}" must be one of ${allowed.join(', ')}, got ${describe(value)}`);
    }
    return value as T;
  }

  optionalZod(value: unknown, field: string): void {
    if (value !== undefined && !isZodSchema(value)) {
      this.fail(field, `"${field}" must be a Zod v4 schema, got ${describe(value)}`);
    }
  }

  /** A JSON Schema document: an object (not a Zod schema) or a boolean. */
  optionalJsonSchema(value: unknown, field: string): void {
    if (value === undefined || typeof value === 'boolean') return;
    if (!isPlainObject(value)) {
      this.fail(field, `"${field}" must be a JSON Schema object or a Zod schema, got ${describe(value)}`);
    }
  }
}

/** True for `{…}` literals and `Object.create(null)` objects, not arrays, class instances or functions. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A short, quoted description of a value for error messages (`"Echo"`, `a number (3)`, `undefined`). */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'function') return 'a function';
  if (isZodSchema(value)) return `a Zod ${value._zod.def.type}`;
  if (typeof value === 'object') return 'an object';
  return typeof value;
}

/** Copies the fields that are set, leaving out `undefined` ones (a definition never holds `key: undefined`). */
export function definedFields(source: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) if (value !== undefined) out[key] = value;
  return out;
}
