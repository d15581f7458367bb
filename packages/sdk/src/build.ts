import { err, ok, type Result, validatePackEnvDeclaration } from '@kindgi/protocol';
import { KindgiDefinitionError } from './definition-error.js';
import { describe, FieldChecker, isPlainObject } from './fields.js';

// A Debian package name (policy 5.6.1), optionally pinned to a version with `=`.
const SYSTEM_PACKAGE = /^[a-z0-9][a-z0-9+.-]+(?:=[A-Za-z0-9.+~:-]+)?$/;
// A base image pinned by digest: `name[:tag]@sha256:<64 hex>`.
const PINNED_IMAGE = /^[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64}$/;

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
  /** OS packages (Debian names, `name` or `name=version`) installed into the build and runtime stages. */
  readonly systemPackages?: readonly string[];
  readonly extensions?: readonly BuildExtension[];
  /** Environment variables of the build stage only (the install, `postInstall`, the bundling). */
  readonly buildEnv?: Readonly<Record<string, string>>;
  /**
   * Names (never values) of build-time secrets. Each reaches the install and `postInstall` steps only as
   * a BuildKit secret mount (`docker build --secret id=NAME,env=NAME`), never as an `ARG`, an `ENV` or a
   * file in a layer.
   */
  readonly secretEnv?: readonly string[];
  /** The Node image every stage starts from, pinned by digest: `node:24-slim@sha256:<64 hex>`. */
  readonly baseImage?: string;
}

/** Checks a build extension and returns it frozen. Throws `KindgiDefinitionError` naming the field. */
export function defineBuildExtension<const Extension extends BuildExtension>(extension: Extension): Extension {
  const check: FieldChecker = new FieldChecker('defineBuildExtension');
  const ext = check.object(extension, 'a build extension');
  const name = check.nonEmptyString(ext.name, 'name');
  // The name is printed by the image's failing step: one line of printable text.
  if ([...name].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f))
    check.fail('name', `"name" must be one line of text, got ${describe(name)}`);
  checkSystemPackages(check, ext.systemPackages, 'systemPackages');
  checkContextFiles(check, ext.contextFiles);
  check.optionalStringList(ext.postInstall, 'postInstall');
  (ext.postInstall as unknown[] | undefined)?.forEach((command, index) => {
    // One RUN line each: a line break would end the Containerfile instruction mid-command.
    if (/[\r\n]/.test(command as string))
      check.fail(`postInstall[${index}]`, `"postInstall[${index}]" must be one line`);
  });
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
  if (!isPlainObject(image)) {
    check.fail('image', '"image" must be an object {systemPackages?, extensions?, buildEnv?, secretEnv?, baseImage?}');
  }
  checkSystemPackages(check, image.systemPackages, 'image.systemPackages');
  checkBuildEnv(check, image.buildEnv, 'image.buildEnv');
  checkSecretEnv(check, image.secretEnv, image.buildEnv);
  if (image.baseImage !== undefined && (typeof image.baseImage !== 'string' || !PINNED_IMAGE.test(image.baseImage))) {
    check.fail(
      'image.baseImage',
      `"image.baseImage" must be an image pinned by digest (name:tag@sha256:<64 hex>), got ${describe(image.baseImage)}`,
    );
  }
  if (image.extensions === undefined) return;
  if (!Array.isArray(image.extensions))
    check.fail('image.extensions', '"image.extensions" must be a list of build extensions');
  image.extensions.forEach((extension, index) => {
    try {
      defineBuildExtension(extension as BuildExtension);
    } catch (error) {
      if (!(error instanceof KindgiDefinitionError)) throw error;
      // The extension's name, when it has one, is what its author recognises.
      const named = isPlainObject(extension) && typeof extension.name === 'string' && error.field !== 'name';
      const name = named ? ` (extension "${extension.name}")` : '';
      const field = `image.extensions[${index}]${error.field ? `.${error.field}` : ''}`;
      check.fail(field, `${field}${name}: ${error.message.replace(/^defineBuildExtension: /, '')}`);
    }
  });
}

/**
 * Checks an `image` section read from anywhere (a `kindgi.config.json`, a config written without
 * `defineConfig`): the rules `defineConfig` applies, as a `Result` whose error names the field (and the
 * extension). `kindgi build` checks with it before rendering.
 */
export function validateImageConfig(image: unknown): Result<ImageConfig | undefined, string> {
  try {
    checkImageConfig(new FieldChecker('defineConfig'), image);
    return ok(image as ImageConfig | undefined);
  } catch (error) {
    if (error instanceof KindgiDefinitionError) return err(error.message.replace(/^defineConfig: /, ''));
    throw error;
  }
}

/** An environment variable name by the rule of a pack's `env` declaration (`validatePackEnvDeclaration`). */
function isEnvName(name: unknown): boolean {
  return validatePackEnvDeclaration({ optional: [name] }).kind === 'ok';
}

function checkBuildEnv(check: FieldChecker, env: unknown, field: string): void {
  if (env === undefined) return;
  if (!isPlainObject(env)) check.fail(field, `"${field}" must be an object of strings`);
  for (const [name, value] of Object.entries(env)) {
    if (!isEnvName(name))
      check.fail(`${field}.${name}`, `"${field}" has "${name}", which isn't an environment variable name`);
    if (typeof value !== 'string') check.fail(`${field}.${name}`, `"${field}.${name}" must be a string`);
    if (/[\r\n]/.test(value)) check.fail(`${field}.${name}`, `"${field}.${name}" must be one line`);
  }
}

function checkSecretEnv(check: FieldChecker, names: unknown, buildEnv: unknown): void {
  check.optionalStringList(names, 'image.secretEnv');
  const seen = new Set<string>();
  (names as string[] | undefined)?.forEach((name, index) => {
    const field = `image.secretEnv[${index}]`;
    if (!isEnvName(name)) check.fail(field, `"${field}" must be an environment variable name, got ${describe(name)}`);
    if (seen.has(name)) check.fail(field, `"${field}": "${name}" is listed twice`);
    // A name in both would put the value in an ENV line, which every layer of the stage keeps.
    if (isPlainObject(buildEnv) && name in buildEnv) {
      check.fail(field, `"${field}": "${name}" is also in image.buildEnv; a secret never goes in buildEnv`);
    }
    seen.add(name);
  });
}

function checkSystemPackages(check: FieldChecker, packages: unknown, field: string): void {
  check.optionalStringList(packages, field);
  (packages as string[] | undefined)?.forEach((name, index) => {
    if (!SYSTEM_PACKAGE.test(name)) {
      check.fail(`${field}[${index}]`, `"${field}[${index}]" must be a Debian package name, got ${describe(name)}`);
    }
  });
}

function checkContextFiles(check: FieldChecker, files: unknown): void {
  check.optionalStringList(files, 'contextFiles');
  (files as string[] | undefined)?.forEach((path, index) => {
    const field = `contextFiles[${index}]`;
    const parts = path.split('/');
    // Relative, inside the pack, no globs: each is one COPY source; `.env*` would put secrets in a layer.
    const bad =
      path.startsWith('/') ||
      path.includes('\\') ||
      /[*?[\]\r\n"]/.test(path) ||
      parts.some((part) => part === '..' || part === '' || part === '.') ||
      parts.some((part) => part === '.env' || part.startsWith('.env.'));
    if (bad) {
      check.fail(
        field,
        `"${field}" must be a path inside the pack (no "..", glob or .env file), got ${describe(path)}`,
      );
    }
  });
}

// POSIX single quotes: the path reaches a shell in the image's RUN line.
function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
