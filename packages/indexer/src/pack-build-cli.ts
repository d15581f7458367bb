import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { messageOf } from '@kindgi/protocol';
import { type CliIo, indexerVersion } from './cli.js';
import { type BuildPackOptions, buildPack } from './pack-build.js';

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
export async function packBuildMain(argv: readonly string[], io: CliIo = defaultIo()): Promise<number> {
  let values: {
    'pack-dir'?: string;
    'out-dir'?: string;
    config?: string;
    external?: string[];
    help?: boolean;
    version?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        'pack-dir': { type: 'string' },
        'out-dir': { type: 'string' },
        config: { type: 'string' },
        external: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    }));
  } catch (cause) {
    io.stderr(`kindgi-pack-build: ${messageOf(cause)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (values.version) {
    io.stdout(`${indexerVersion()}\n`);
    return 0;
  }
  const packDir = values['pack-dir'];
  if (packDir === undefined || packDir === '') {
    io.stderr(`kindgi-pack-build: --pack-dir is required\n\n${USAGE}`);
    return 2;
  }
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

function defaultIo(): CliIo {
  return { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) };
}
