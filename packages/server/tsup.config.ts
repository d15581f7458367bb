import { packageBuild } from '../../tsup.base.ts';

export default packageBuild(['src/index.ts', 'src/main.ts'], { dts: { entry: ['src/index.ts', 'src/main.ts'] } });
