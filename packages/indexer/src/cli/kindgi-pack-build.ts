import { resolve } from 'node:path';
import { type BuildPackOptions, buildPack } from '../build/pack-build.js';
import { type CliIo, parseCommandLine, processIo } from './args.js';
import { indexerVersion } from './kindgi-index.js';

const USAGE = `Usage: kindgi-pack-build --pack-dir <path> [options]

Bundles a Node pack for an image: one self-contained ESM bundle per discovered file (esbuild, every
dependency inlined), the config as kindgi.config.mjs, and bundle-map.json (source path -> bundle path).
Then index the build, with no TypeScript loader and no sources:
  kindgi-index --pack-dir <out-dir> --bundle-map <out-dir>/bundle-map.json --module-root <out-dir>
Path options resolve against the working directory.

Options:
  --pack-dir <path>      the pack root (required)
  --out-dir <path>       where the bundles go (default: <pack-dir>/dist)
  --config <path>        the pack config (default: looked up at the pack root)
  --external <package>   leave a package as an import instead of inlining it (repeatable; the
                         runtime stage must then hold it)
  -h, --help             print this help
  --version              print the version

Exit codes: 0 built, 1 the build failed (nothing half-written is left as the bundle map), 2 bad arguments.
`;

/** The `kindgi-pack-build` command. Resolves to the exit code; never throws. */
export async function packBuildMain(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const line = parseCommandLine<{ 'out-dir'?: string; config?: string; external?: string[] }>(
    { name: 'kindgi-pack-build', usage: USAGE, version: indexerVersion },
    argv,
    {
      'pack-dir': { type: 'string' },
      'out-dir': { type: 'string' },
      config: { type: 'string' },
      external: { type: 'string', multiple: true },
    },
    io,
  );
  if (line.kind === 'exit') return line.code;
  const { values, packDir } = line;
  const options: BuildPackOptions = { packDir: resolve(packDir), external: values.external ?? [] };
  if (values['out-dir'] !== undefined) options.outDir = resolve(values['out-dir']);
  if (values.config !== undefined) options.configPath = resolve(values.config);
  const outcome = await buildPack(options);
  if (outcome.kind === 'err') {
    io.stderr(`kindgi-pack-build: ${outcome.error.code}: ${outcome.error.message}\n`);
    return 1;
  }
  const { bundleMap, outDir, bundleMapPath } = outcome.value;
  io.stdout(
    `Bundled ${Object.keys(bundleMap).length} files and kindgi.config.mjs into ${outDir} (map: ${bundleMapPath})\n`,
  );
  return 0;
}
