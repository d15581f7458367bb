import type { ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import stableStringify from 'fast-json-stable-stringify';
import type { ValidationIssue } from '../messages.js';
import { messageOf } from '../pack-error.js';
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

/** One Ajv instance and how many of the cache's validators it compiled and still backs. */
interface Generation {
  ajv: Ajv2020;
  compiled: number;
  live: number;
}

interface Entry {
  validator: CompiledValidator;
  generation: Generation;
  /** The object Ajv compiled (its cache key), to remove it again on eviction. */
  compiledSchema: object | boolean;
}

/**
 * Compiles JSON Schemas once and keeps them. Lookups by the same schema object cost one WeakMap
 * read; a structurally equal schema from elsewhere is found by its canonical text.
 *
 * Memory stays bounded: an evicted validator is removed from its Ajv too (so a schema with an `$id` can
 * be compiled again), and every `maxEntries` compilations start a fresh Ajv instance, since Ajv keeps
 * some of what it compiled (regular expressions, generated code's scope) even after `removeSchema`. An
 * old instance is dropped once its last validator is evicted.
 */
export class ValidatorCache {
  readonly #maxEntries: number;
  readonly #current: Record<SchemaSide, Generation> = {
    input: ValidatorCache.#generation('input'),
    output: ValidatorCache.#generation('output'),
  };
  readonly #byText = { input: new Map<string, Entry>(), output: new Map<string, Entry>() };
  readonly #byObject = {
    input: new WeakMap<object, CompiledValidator>(),
    output: new WeakMap<object, CompiledValidator>(),
  };

  constructor(options: ValidatorCacheOptions = {}) {
    this.#maxEntries = Math.max(1, options.maxEntries ?? 512);
  }

  static #generation(side: SchemaSide): Generation {
    return { ajv: createAjv({ useDefaults: side === 'input' }), compiled: 0, live: 0 };
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
      return err(messageOf(cause));
    }
    const cache = this.#byText[side];
    const hit = cache.get(text);
    if (hit) {
      cache.delete(text);
      cache.set(text, hit);
      return ok(hit.validator);
    }
    if (this.#current[side].compiled >= this.#maxEntries) this.#current[side] = ValidatorCache.#generation(side);
    const generation = this.#current[side];
    // A copy: Ajv keeps the schema, and the caller's object may change later.
    const compiledSchema = JSON.parse(text) as object | boolean;
    let validate: ValidateFunction;
    try {
      validate = generation.ajv.compile(compiledSchema);
    } catch (cause) {
      return err(messageOf(cause));
    }
    generation.compiled++;
    generation.live++;
    const validator: CompiledValidator = (value) => (validate(value) ? ok(value) : err(issuesFromAjv(validate.errors)));
    cache.set(text, { validator, generation, compiledSchema });
    if (cache.size > this.#maxEntries) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) this.#evict(cache, oldest);
    }
    return ok(validator);
  }

  #evict(cache: Map<string, Entry>, text: string): void {
    const entry = cache.get(text) as Entry;
    cache.delete(text);
    entry.generation.live--;
    // A boolean schema is not kept by Ajv; an object is, with its `$id`.
    if (typeof entry.compiledSchema === 'object') entry.generation.ajv.removeSchema(entry.compiledSchema);
  }
}
