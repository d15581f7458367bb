import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildNodeFixtureIndex, describePackServiceConformance, nodeFixturePackDir } from '../src/index.js';

// Our TypeScript pack service, as built (`pnpm --filter @kindgi/pack-service build`).
const mainJs = fileURLToPath(new URL('../../pack-service/dist/main.js', import.meta.url));
if (!existsSync(mainJs)) throw new Error(`Build @kindgi/pack-service first: ${mainJs} is missing`);

describePackServiceConformance({
  name: 'node',
  packDir: nodeFixturePackDir,
  buildIndex: buildNodeFixtureIndex,
  command: [process.execPath, mainJs],
});
