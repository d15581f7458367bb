import { packageBuild } from '../../tsup.base.ts';

// One entry per documented subpath. The process entries land where the docs say to start them:
// `node dist/pack-service/main.js` and `node dist/kindgi-index/main.js`. The self-contained bundles
// (dist/kindgi-index.mjs, dist/kindgi-pack-service.mjs) are written after this by scripts/bundle.mjs.
export default packageBuild({
  index: 'src/index.ts',
  protocol: 'src/protocol.ts',
  'pack-service': 'src/pack-service.ts',
  'pack-service/main': 'src/pack-service-main.ts',
  'kindgi-index': 'src/kindgi-index.ts',
  'kindgi-index/main': 'src/kindgi-index-main.ts',
  'kindgi-pack-build/main': 'src/kindgi-pack-build-main.ts',
  'build-extensions': 'src/build-extensions.ts',
});
