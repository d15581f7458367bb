import type { ValidateFunction } from 'ajv';
import stableStringify from 'fast-json-stable-stringify';
import type { ValidationIssue } from '../messages.js';
import { err, ok, type Result } from '../result.js';
import { createAjv } from './ajv.js';
import { issuesFromAjv } from './issues.js';

/** Which side of a call a schema guards: inputs get their defaults filled in, outputs do not. */
export type SchemaSide = 'input' | 'output';

/** Validates a value in place; on the input side it fills defaults into the value it is given. */
export type CompiledValidator = (value: unknown) => Result<unknown, ValidationIssue[]>;

export interface ValidatorCacheOptions {
  /** Most compiled validators kept per side (least recently used are dropped). Default 512. */
  maxEntries?: number;
}

/**
 * Compiles JSON Schemas once and keeps them. Lookups by the same schema object cost one WeakMap
 * read; a structurally equal schema from elsewhere is found by its canonical text.
 */
export class ValidatorCache {
  readonly #maxEntries: number;
  readonly #ajv = { input: createAjv({ useDefaults: true }), output: createAjv() };
  readonly #byText = { input: new Map<string, CompiledValidator>(), output: new Map<string, CompiledValidator>() };
  readonly #byObject = {
    input: new WeakMap<object, CompiledValidator>(),
    output: new WeakMap<object, CompiledValidator>(),
  };

  constructor(options: ValidatorCacheOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 512;
  }

  /** The validator for `schema`, or the compile error's message. Never throws. */
  get(schema: unknown, side: SchemaSide): Result<CompiledValidator, string> {
    const isObject = typeof schema === 'object' && schema !== null;
    if (isObject) {
      const hit = this.#byObject[side].get(schema);
      if (hit) return ok(hit);
    }
    if (typeof schema === 'boolean') return this.#compileByText(schema, side);
    if (!isObject) return err(`schema must be an object or a boolean, got ${typeof schema}`);
    const compiled = this.#compileByText(schema, side);
    if (compiled.kind === 'ok') this.#byObject[side].set(schema, compiled.value);
    return compiled;
  }

  /** How many compiled validators are held for `side`. */
  size(side: SchemaSide): number {
    return this.#byText[side].size;
  }

  #compileByText(schema: object | boolean, side: SchemaSide): Result<CompiledValidator, string> {
    let text: string;
    try {
      text = stableStringify(schema);
    } catch (cause) {
      return err(cause instanceof Error ? cause.message : String(cause));
    }
    const cache = this.#byText[side];
    const hit = cache.get(text);
    if (hit) {
      cache.delete(text);
      cache.set(text, hit);
      return ok(hit);
    }
    let validate: ValidateFunction;
    try {
      // A copy: Ajv keeps the schema, and the caller's object may change later.
      validate = this.#ajv[side].compile(JSON.parse(text) as object);
    } catch (cause) {
      return err(cause instanceof Error ? cause.message : String(cause));
    }
    const validator: CompiledValidator = (value) => (validate(value) ? ok(value) : err(issuesFromAjv(validate.errors)));
    cache.set(text, validator);
    if (cache.size > this.#maxEntries) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    return ok(validator);
  }
}
