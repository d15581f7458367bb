import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats ships CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export interface AjvOptions {
  /** Fill in each property's `default` while validating (input side only). */
  useDefaults?: boolean;
}

/**
 * The one Ajv configuration every package uses: Draft 2020-12, strict, all errors, ajv-formats.
 * Union types (`type: ["string", "number"]`) are allowed because Zod unions convert to them.
 */
export function createAjv(options: AjvOptions = {}): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    allowUnionTypes: true,
    useDefaults: options.useDefaults ?? false,
  });
  addFormats(ajv);
  return ajv;
}
