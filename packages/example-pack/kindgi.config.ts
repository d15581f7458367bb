import { defineConfig } from '@kindgi/sdk';

export default defineConfig({
  pack: { id: 'acme', version: '1.4.0' },
  // The variables the pack's code reads: the pack service refuses to serve without ACME_API_BASE.
  env: { required: ['ACME_API_BASE'], optional: ['LOG_LEVEL'] },
});
