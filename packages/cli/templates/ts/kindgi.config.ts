import { defineConfig } from '@kindgi/sdk';

export default defineConfig({
  pack: { id: '__PACK_ID__', version: '0.1.0' },
  // The kindgi CLI this pack is built and served with: `./kindgiw` runs exactly this version.
  cli: '__CLI_VERSION__',
  // The environment variables the pack's code reads (names only; values go in .env / .env.local).
  env: { required: [], optional: ['LOG_LEVEL'] },
});
