import { readFileSync } from 'node:fs';
import { createAjv, issuesFromAjv } from '@kindgi/protocol';

// The language-neutral contracts at the repository's root (specs/), read relative to this package.
const specsDir = new URL('../../../specs/', import.meta.url);

function load(name: string): { $id: string } & Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(name, specsDir), 'utf8'));
}

/** What a reply or document must match. */
export type SpecShape = 'response' | 'info' | 'transportError' | 'health' | 'index';

type ValidateFunction = ReturnType<ReturnType<typeof createAjv>['compile']>;

let validators: Record<SpecShape, ValidateFunction> | undefined;

function compile(): Record<SpecShape, ValidateFunction> {
  const ajv = createAjv();
  const protocol = load('pack-protocol.schema.json');
  const index = load('pack-index.schema.json');
  ajv.addSchema(protocol);
  const def = (name: string): ValidateFunction => {
    const validate = ajv.getSchema(`${protocol.$id}#/$defs/${name}`);
    if (!validate) throw new Error(`specs/pack-protocol.schema.json has no $defs/${name}`);
    return validate;
  };
  return {
    response: def('response'),
    info: def('info'),
    transportError: def('transportError'),
    health: def('health'),
    index: ajv.compile(index),
  };
}

/** The problems of `value` against one of the specs' shapes (empty when it conforms). */
export function specProblems(shape: SpecShape, value: unknown): string[] {
  validators ??= compile();
  const validate = validators[shape];
  if (validate(value)) return [];
  return issuesFromAjv(validate.errors ?? []).map((issue) => `${issue.instancePath || '/'} ${issue.message}`);
}
