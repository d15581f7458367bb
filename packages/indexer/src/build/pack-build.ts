import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { canonicalJson, describeThrown, err, ok, type Result } from '@kindgi/protocol';
import { type BuildFailure, build } from 'esbuild';
import { findAllKindgiConfigs } from '../config/find.js';
import { languageMismatchMessage } from '../config/language-mismatch.js';
import { type LoadedKindgiConfig, packLanguage, readKindgiConfig } from '../config/load.js';
import { writeFileAtomic } from '../indexing/atomic-write.js';
import { discoverFiles, resolveDiscovery } from '../indexing/discovery.js';
import type { BundleMap } from './bundle-map.js';

/** What `buildPack` bundles and where. */
export interface BuildPackOptions {
  /** The pack root (its `kindgi.config.*` and sources). */
  packDir: string;
  /** Where the bundles, `kindgi.config.mjs` and `bundle-map.json` go. Default `<packDir>/dist`. */
  outDir?: string;
  /** A config file to bundle instead of the one looked up at the pack root. */
  configPath?: string;
  /** Packages left as imports instead of inlined (native modules); the runtime stage must then hold them. */
  external?: string[];
}

/** What `buildPack` wrote. */
export interface PackBuildReport {
  outDir: string;
  /** The bundled config, which `kindgi-index --pack-dir <outDir>` finds. */
  configPath: string;
  /** `<outDir>/bundle-map.json`. */
  bundleMapPath: string;
  /** Source path (relative to the pack root) → bundle path (relative to `outDir`), as written. */
  bundleMap: BundleMap;
}

/** Why `buildPack` wrote no bundle map. */
export interface PackBuildError {
  code:
    | 'config-not-found'
    | 'config-parse-failed'
    | 'config-invalid'
    | 'language-mismatch'
    | 'discovery-empty'
    | 'bundle-failed'
    | 'output-write-failed';
  message: string;
  file?: string;
}

/** The bundle map's file name inside the output folder. */
export const BUNDLE_MAP_FILENAME = 'bundle-map.json';

/** The bundled config's file name: the first module config name the indexer looks up that needs no loader. */
export const BUNDLED_CONFIG_FILENAME = 'kindgi.config.mjs';

// Bundled CommonJS dependencies call require() for Node built-ins, which an ESM file lacks.
const REQUIRE_BANNER =
  "import { createRequire as __kindgiCreateRequire } from 'node:module';\nconst require = __kindgiCreateRequire(import.meta.url);";

function bundlePathOf(sourcePath: string): string {
  return `${sourcePath.replace(/\.(?:[cm]?[jt]s|tsx)$/, '')}.mjs`;
}

/** One bundle esbuild produced, held in memory until every bundle of the build is ready. */
interface Output {
  path: string;
  text: string;
}

async function bundle(
  packDir: string,
  outDir: string,
  entries: Record<string, string>,
  external: string[],
): Promise<Result<Output[], PackBuildError>> {
  try {
    const result = await build({
      // Output names relative to the pack root keep the bundles' comments free of machine paths, so two
      // builds of the same sources are byte-identical wherever they run.
      absWorkingDir: packDir,
      entryPoints: Object.entries(entries).map(([out, source]) => ({ in: source, out })),
      outdir: outDir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      splitting: false,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      banner: { js: REQUIRE_BANNER },
      external,
      legalComments: 'eof',
      logLevel: 'silent',
      write: false,
    });
    return ok(result.outputFiles.map((file) => ({ path: file.path, text: file.text })));
  } catch (cause) {
    const failure = cause as Partial<BuildFailure>;
    const lines = (failure.errors ?? []).map((e) => {
      const where = e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ` : '';
      return `${where}${e.text}`;
    });
    const file = failure.errors?.[0]?.location?.file;
    const message = `esbuild could not bundle the pack: ${lines.length > 0 ? lines.join('; ') : describeThrown(cause)}`;
    return err({ code: 'bundle-failed', message, ...(file ? { file } : {}) });
  }
}

/** Loads the bundled config from a temporary file beside where it will be written, then removes it. */
async function readBundledConfig(
  outDir: string,
  output: Output,
  configSource: string,
): Promise<Result<LoadedKindgiConfig, PackBuildError>> {
  const temporary = join(outDir, `.kindgi.config.${process.pid}-${Date.now()}.mjs`);
  try {
    await mkdir(outDir, { recursive: true });
    await writeFile(temporary, output.text);
  } catch (cause) {
    return err({ code: 'output-write-failed', message: `Could not write ${temporary}: ${describeThrown(cause)}` });
  }
  const loaded = await readKindgiConfig(outDir, { configPath: temporary });
  await rm(temporary, { force: true });
  if (loaded.kind === 'ok') return loaded;
  const message = loaded.error.message.replaceAll(basename(temporary), basename(configSource));
  return err({ code: loaded.error.code as PackBuildError['code'], message, file: configSource });
}

/**
 * Bundles a TypeScript (or JavaScript) pack for an image: one self-contained ESM bundle per discovered
 * file (esbuild, every dependency inlined), the config as `kindgi.config.mjs`, and `bundle-map.json`
 * (source path → bundle path). `kindgi-index --pack-dir <outDir> --bundle-map <outDir>/bundle-map.json
 * --module-root <outDir>` then indexes it with no TypeScript loader and no sources. Never throws.
 */
export async function buildPack(options: BuildPackOptions): Promise<Result<PackBuildReport, PackBuildError>> {
  const packDir = resolve(options.packDir);
  const outDir = resolve(packDir, options.outDir ?? 'dist');
  const external = options.external ?? [];
  const configSource = options.configPath
    ? resolve(packDir, options.configPath)
    : (await findAllKindgiConfigs(packDir)).find((found) => found.format === 'module')?.path;
  if (configSource === undefined) {
    const message = `No kindgi.config.{ts,mts,mjs,js,cjs} in ${packDir}: only a Node pack is bundled`;
    return err({ code: 'config-not-found', message });
  }
  // The config is bundled first and read from its bundle: the build itself needs no TypeScript loader.
  const configBundle = await bundle(packDir, outDir, { 'kindgi.config': configSource }, external);
  if (configBundle.kind === 'err') return configBundle;
  const loaded = await readBundledConfig(outDir, configBundle.value[0]!, configSource);
  if (loaded.kind === 'err') return loaded;
  const language = packLanguage(loaded.value.config);
  if (language !== 'node') {
    return err({ code: 'language-mismatch', message: languageMismatchMessage(language, configSource) });
  }
  const outRelative = relative(packDir, outDir);
  const inside = outRelative !== '' && !outRelative.startsWith('..') && !isAbsolute(outRelative);
  const files = (await discoverFiles(packDir, resolveDiscovery(loaded.value.config.discovery, language))).filter(
    (file) => !inside || !`${file.path}/`.startsWith(`${outRelative.split(sep).join('/')}/`),
  );
  if (files.length === 0) {
    return err({ code: 'discovery-empty', message: `Discovery found nothing to bundle under ${packDir}` });
  }
  const bundleMap: BundleMap = {};
  const entries: Record<string, string> = {};
  const sourceOf = new Map<string, string>();
  for (const file of files) {
    const target = bundlePathOf(file.path);
    const earlier = sourceOf.get(target);
    if (earlier !== undefined) {
      const message = `${earlier} and ${file.path} would both be bundled as ${target}: rename one of them`;
      return err({ code: 'bundle-failed', message, file: file.path });
    }
    sourceOf.set(target, file.path);
    bundleMap[file.path] = target;
    entries[target.slice(0, -'.mjs'.length)] = join(packDir, file.path);
  }
  const bundled = await bundle(packDir, outDir, entries, external);
  if (bundled.kind === 'err') return bundled;
  // Only a build whose every bundle compiled is written, the map last: a failed build leaves the previous
  // map and the bundles it names as they were.
  const bundleMapPath = join(outDir, BUNDLE_MAP_FILENAME);
  const configPath = join(outDir, BUNDLED_CONFIG_FILENAME);
  try {
    for (const output of bundled.value) await writeFileAtomic(output.path, output.text);
    await writeFileAtomic(configPath, configBundle.value[0]!.text);
    await writeFileAtomic(bundleMapPath, canonicalJson(bundleMap));
  } catch (cause) {
    const message = `Could not write ${bundleMapPath}: ${describeThrown(cause)}`;
    return err({ code: 'output-write-failed', message, file: bundleMapPath });
  }
  return ok({ outDir, configPath, bundleMapPath, bundleMap });
}
