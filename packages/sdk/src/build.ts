import { KindgiDefinitionError } from './definition-error.js';
import { FieldChecker, isPlainObject } from './fields.js';

/**
 * A step added to a pack image's build: files it needs in the build context, system packages, commands
 * run after the install, and build-time environment. Data only: `kindgi build` renders it.
 */
export interface BuildExtension {
  readonly name: string;
  /** Paths, relative to the pack root, copied into the build context. */
  readonly contextFiles?: readonly string[];
  /** OS packages installed into the image. */
  readonly systemPackages?: readonly string[];
  /** Shell commands run after the dependencies are installed, in order. */
  readonly postInstall?: readonly string[];
  /** Environment variables set while building (not at run time). */
  readonly buildEnv?: Readonly<Record<string, string>>;
}

/** The `image` section of a TypeScript pack's `kindgi.config.*`. */
export interface ImageConfig {
  readonly systemPackages?: readonly string[];
  readonly extensions?: readonly BuildExtension[];
  readonly buildEnv?: Readonly<Record<string, string>>;
}

/** Checks a build extension and returns it frozen. Throws `KindgiDefinitionError` naming the field. */
export function defineBuildExtension<const Extension extends BuildExtension>(extension: Extension): Extension {
  const check: FieldChecker = new FieldChecker('defineBuildExtension');
  const ext = check.object(extension, 'a build extension');
  check.nonEmptyString(ext.name, 'name');
  check.optionalStringList(ext.contextFiles, 'contextFiles');
  check.optionalStringList(ext.systemPackages, 'systemPackages');
  check.optionalStringList(ext.postInstall, 'postInstall');
  checkBuildEnv(check, ext.buildEnv, 'buildEnv');
  return Object.freeze({ ...ext }) as unknown as Extension;
}

/** Options of the Prisma extension. */
export interface PrismaOptions {
  /** The Prisma schema, relative to the pack root (`prisma/schema.prisma`). */
  readonly schema: string;
  /** A `prisma.config.ts`, when the project uses one. */
  readonly config?: string;
}

/** A build extension that runs `prisma generate` after the install, with the schema in the build context. */
export function prisma(options: PrismaOptions): BuildExtension {
  const check: FieldChecker = new FieldChecker('prisma');
  const opts = check.object(options, 'Prisma options');
  const schema = check.nonEmptyString(opts.schema, 'schema');
  check.optionalString(opts.config, 'config');
  const config = opts.config as string | undefined;
  const generate = config
    ? `npx prisma generate --schema ${shellQuote(schema)} --config ${shellQuote(config)}`
    : `npx prisma generate --schema ${shellQuote(schema)}`;
  return defineBuildExtension({
    name: 'prisma',
    contextFiles: config ? [schema, config] : [schema],
    postInstall: [generate],
  });
}

/** Checks an `image` section (used by `defineConfig`). */
export function checkImageConfig(check: FieldChecker, image: unknown): void {
  if (image === undefined) return;
  if (!isPlainObject(image)) check.fail('image', '"image" must be an object {systemPackages?, extensions?, buildEnv?}');
  check.optionalStringList(image.systemPackages, 'image.systemPackages');
  checkBuildEnv(check, image.buildEnv, 'image.buildEnv');
  if (image.extensions === undefined) return;
  if (!Array.isArray(image.extensions))
    check.fail('image.extensions', '"image.extensions" must be a list of build extensions');
  image.extensions.forEach((extension, index) => {
    try {
      defineBuildExtension(extension as BuildExtension);
    } catch (error) {
      if (!(error instanceof KindgiDefinitionError)) throw error;
      const field = `image.extensions[${index}]${error.field ? `.${error.field}` : ''}`;
      check.fail(field, `${field}: ${error.message.replace(/^defineBuildExtension: /, '')}`);
    }
  });
}

function checkBuildEnv(check: FieldChecker, env: unknown, field: string): void {
  if (env === undefined) return;
  if (!isPlainObject(env)) check.fail(field, `"${field}" must be an object of strings`);
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== 'string') check.fail(`${field}.${name}`, `"${field}.${name}" must be a string`);
  }
}

// POSIX single quotes: the path reaches a shell in the image's RUN line.
function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
