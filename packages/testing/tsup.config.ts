import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/contract-suite.ts', 'src/postgres.ts', 'src/moto.ts'],
  format: ['esm'],
  target: 'node20',
  dts: true,
  clean: true,
  sourcemap: true,
});
