import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createAjv } from '../src/index.js';

const specsDir = fileURLToPath(new URL('../../../specs/', import.meta.url));

export function readSpec(name: string): unknown {
  return JSON.parse(readFileSync(`${specsDir}${name}`, 'utf8'));
}

/** An Ajv loaded with both spec documents; `validator('pack-protocol', 'request')` picks a $def. */
export function specValidators() {
  const ajv = createAjv();
  ajv.addSchema(readSpec('pack-protocol.schema.json') as object, 'pack-protocol');
  ajv.addSchema(readSpec('pack-index.schema.json') as object, 'pack-index');
  return (schema: 'pack-protocol' | 'pack-index', def?: string) => {
    const validate = ajv.getSchema(def ? `${schema}#/$defs/${def}` : schema);
    if (!validate) throw new Error(`no schema ${schema} ${def ?? ''}`);
    return validate;
  };
}

export { specsDir };
