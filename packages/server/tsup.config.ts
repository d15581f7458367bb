import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/main.ts'],
  format: ['esm'],
  target: 'node20',
  dts: { entry: ['src/index.ts', 'src/main.ts'] },
  clean: true,
  sourcemap: true,
});
