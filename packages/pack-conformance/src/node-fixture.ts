import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { canonicalJson, compareCodeUnits, type JsonSchema, type PackIndex } from '@kindgi/protocol';
import type { IndexPins } from './types.js';

/** The Node fixture pack (plain `.mjs` modules): the reference implementation of FIXTURE.md. */
export const nodeFixturePackDir = fileURLToPath(new URL('../fixtures/node-pack/', import.meta.url));

const anyObject: JsonSchema = { type: 'object' };

/** The fixture's tools, in the shape FIXTURE.md specifies; `modulePath` is the Node pack's file. */
export function fixtureTools(modulePath: (name: string) => string): PackIndex['tools'] {
  const tool = (name: string, input: JsonSchema, output: JsonSchema = anyObject, extra: object = {}) => ({
    id: `conformance.${name}`,
    input,
    output,
    modulePath: modulePath(name),
    ...extra,
  });
  return [
    tool(
      'echo',
      {
        type: 'object',
        properties: { message: { type: 'string', minLength: 1 } },
        required: ['message'],
        additionalProperties: false,
      },
      {
        type: 'object',
        properties: { message: { type: 'string' } },
        required: ['message'],
        additionalProperties: false,
      },
      { version: '1.0.0' },
    ),
    tool('bad-output', anyObject, {
      type: 'object',
      properties: { count: { type: 'integer' } },
      required: ['count'],
    }),
    tool('throws', anyObject),
    tool('sleep', {
      type: 'object',
      properties: { ms: { type: 'integer', minimum: 0 } },
      required: ['ms'],
    }),
    tool('hold', { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
    // The suite's ctx sends apiKey (and, in one case, a key no tool declares).
    tool('context', anyObject, anyObject, {
      needsSpec: { secrets: { apiKey: { type: 'string' } } },
    }),
    tool('defaults', {
      type: 'object',
      properties: {
        greeting: { type: 'string', default: 'hello' },
        options: {
          type: 'object',
          properties: { count: { type: 'integer', default: 1 } },
          default: {},
        },
      },
    }),
    tool('noisy', anyObject),
    tool('env-names', anyObject),
    tool('proc-environ', anyObject),
    tool('process-env', {
      type: 'object',
      properties: { names: { type: 'array', items: { type: 'string' } } },
      required: ['names'],
    }),
  ].sort((a, b) => compareCodeUnits(a.id, b.id));
}

/** The fixture's guardrails (one per check); `checkModulePath` is the Node pack's file. */
export function fixtureGuardrails(modulePath: (name: string) => string): PackIndex['guardrails'] {
  return [
    {
      id: 'conformance.min-length',
      kind: 'zero-llm',
      action: { 'on-violation': 'halt' },
      severity: 'error',
      checkModulePath: modulePath('min-length'),
      checkId: 'conformance.checks.min-length',
      configSchema: {
        type: 'object',
        properties: { minLength: { type: 'integer', minimum: 0, default: 1 } },
      },
    },
    {
      id: 'conformance.throws',
      kind: 'zero-llm',
      action: { 'on-violation': 'log-only' },
      severity: 'warn',
      checkModulePath: modulePath('throws'),
      checkId: 'conformance.checks.throws',
    },
  ];
}

/** The whole fixture index for a pack whose modules sit at the given paths. */
export function fixtureIndex(
  pins: IndexPins,
  paths: { tool: (name: string) => string; guardrail: (name: string) => string },
): PackIndex {
  return {
    v: 1,
    packId: 'conformance',
    packVersion: '1.0.0',
    artifactVersion: pins.artifactVersion,
    publishedAt: pins.publishedAt,
    tools: fixtureTools(paths.tool),
    guardrails: fixtureGuardrails(paths.guardrail),
    agents: [],
    flows: [],
    env: { optional: ['CONFORMANCE_OPTIONAL'], required: ['CONFORMANCE_REQUIRED'] },
  };
}

/** Writes the Node fixture pack's index (canonical bytes) to `outPath`: the Node target's `buildIndex`. */
export function buildNodeFixtureIndex(outPath: string, pins: IndexPins): void {
  const index = fixtureIndex(pins, {
    tool: (name) => `tools/${name}.mjs`,
    guardrail: (name) => `guardrails/${name}.mjs`,
  });
  writeFileSync(outPath, canonicalJson(index));
}
