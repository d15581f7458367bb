import { defineConfig } from 'tsup';

// One entry per documented subpath. The process entries land where the docs say to start them:
// `node dist/pack-service/main.js` and `node dist/kindgi-index/main.js`.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    protocol: 'src/protocol.ts',
    'pack-service': 'src/pack-service.ts',
    'pack-service/main': 'src/pack-service-main.ts',
    'kindgi-index': 'src/kindgi-index.ts',
    'kindgi-index/main': 'src/kindgi-index-main.ts',
    'build-extensions': 'src/build-extensions.ts',
  },
  format: ['esm'],
  target: 'node20',
  dts: true,
  clean: true,
  sourcemap: true,
});
