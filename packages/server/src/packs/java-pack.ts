import { accessSync, constants, cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, delimiter, isAbsolute, join, relative, sep } from 'node:path';
import { err, messageOf, type PackIndex, type Result } from '@kindgi/protocol';
import { indexReportFailure, type PackBuildFailure, readIndexFile, runTool } from './build-tool.js';

/** Why a Java pack could not be built or indexed: one line, and each problem with its file. */
export type JavaBuildFailure = PackBuildFailure;

/**
 * A Java pack (`kindgi.config.json` says `"language": "java"`) as the server runs it: compiled with Maven
 * (`./mvnw` when the pack has the wrapper), its classes copied to a snapshot of their own so a later
 * compile never changes the classes a running JVM still loads, indexed with `Main index`, and served
 * with `Main serve` from that snapshot.
 */
export interface JavaPackBuild {
  /** Compiles, snapshots and indexes into `indexPath` (nothing written there on a failure). */
  build(indexPath: string): Promise<Result<PackIndex, JavaBuildFailure>>;
  /** The service command for the build being started, else the one serving. */
  command(): readonly string[];
  /** After the supervisor's start of the last build: it serves (`true`) or the old one keeps serving. */
  started(serving: boolean): void;
  /** Files the build itself writes (Maven's `target/`), which must not trigger a rebuild. */
  ignores(changed: string | null): boolean;
  /** Removes the snapshots. */
  close(): void;
}

// `[ERROR] /abs/src/main/java/acme/tools/Greet.java:[12,5] ';' expected` (maven-compiler-plugin's form).
const COMPILER_ERROR = /^\[ERROR\] (.+\.java):\[(\d+),(\d+)\] (.*)$/;

/** True when the pack's `kindgi.config.json` names Java as its language. */
export function isJavaPack(dir: string): boolean {
  try {
    const config = JSON.parse(readFileSync(join(dir, 'kindgi.config.json'), 'utf8')) as { language?: unknown };
    return config.language === 'java';
  } catch {
    return false;
  }
}

function maven(dir: string): string {
  try {
    accessSync(join(dir, 'mvnw'), constants.X_OK);
    return join(dir, 'mvnw');
  } catch {
    return 'mvn';
  }
}

/** Compiler errors as `file:line:col: message`, the file relative to the pack. */
export function compileProblems(dir: string, output: string): JavaBuildFailure['problems'] {
  const problems: JavaBuildFailure['problems'] = [];
  for (const line of output.split('\n')) {
    const match = COMPILER_ERROR.exec(line.trim());
    if (!match) continue;
    const [, path = '', row, column, text] = match;
    const file = isAbsolute(path) ? relative(dir, path) : path;
    const message = `${file}:${row}:${column}: ${text}`;
    // Maven prints each error twice: as javac reports it, and again in the failed goal's summary.
    if (!problems.some((p) => p.message === message)) problems.push({ code: 'compile-failed', file, message });
  }
  return problems;
}

/**
 * Copies the dependency jars into the snapshot, so it serves the same code whatever later happens to the
 * local Maven repository, and a pack user who cannot enter the server's home can still read them.
 */
function copyJars(classpath: string, libDir: string): string[] {
  mkdirSync(libDir, { recursive: true });
  return classpath
    .split(delimiter)
    .filter((entry) => entry !== '')
    .map((entry, position) => {
      const copy = join(libDir, `${position}-${basename(entry)}`);
      cpSync(entry, copy, { recursive: true });
      return copy;
    });
}

interface Snapshot {
  dir: string;
  classpath: string;
}

/** The build of one Java pack under the server; snapshots go under `workDir/java`. */
export function createJavaPackBuild(options: { dir: string; workDir: string }): JavaPackBuild {
  const { dir } = options;
  const root = join(options.workDir, 'java');
  const classpathFile = join(root, 'classpath.txt');
  let builds = 0;
  // A snapshot is `root/build-N`: its `classes` lead its classpath.
  let pending: Snapshot | undefined;
  let serving: Snapshot | undefined;
  let previous: Snapshot | undefined;
  const drop = (snapshot: Snapshot | undefined) => {
    if (snapshot) rmSync(snapshot.dir, { recursive: true, force: true });
  };

  return {
    async build(indexPath) {
      await mkdir(root, { recursive: true });
      const compile = await runTool(
        maven(dir),
        [
          '-B',
          '-q',
          'compile',
          'dependency:build-classpath',
          `-Dmdep.outputFile=${classpathFile}`,
          '-Dmdep.includeScope=runtime',
        ],
        dir,
      );
      if (compile.code !== 0) {
        const output = `${compile.stdout}\n${compile.stderr}`;
        const problems = compileProblems(dir, output);
        const detail =
          problems.length > 0
            ? problems.map((p) => p.message).join('; ')
            : output.trim().split('\n').slice(-5).join(' ');
        return err({
          message: `compile-failed: ${detail}`,
          problems: problems.length > 0 ? problems : [{ code: 'compile-failed', message: detail }],
        });
      }
      builds += 1;
      const snapshot: Snapshot = { dir: join(root, `build-${builds}`), classpath: '' };
      const classes = join(snapshot.dir, 'classes');
      try {
        cpSync(join(dir, 'target', 'classes'), classes, { recursive: true });
        const jars = copyJars(readFileSync(classpathFile, 'utf8').trim(), join(snapshot.dir, 'lib'));
        snapshot.classpath = [classes, ...jars].join(delimiter);
      } catch (cause) {
        drop(snapshot);
        const message = `the build left no classes or classpath: ${messageOf(cause)}`;
        return err({ message: `compile-failed: ${message}`, problems: [{ code: 'compile-failed', message }] });
      }
      const classpath = snapshot.classpath;
      const index = await runTool(
        'java',
        [
          '-cp',
          classpath,
          'com.kindgi.pack.Main',
          'index',
          '--pack-dir',
          dir,
          '--classes',
          classes,
          '--output',
          indexPath,
          '--json',
        ],
        dir,
      );
      if (index.code !== 0) {
        drop(snapshot);
        return err(indexReportFailure(index, index.stderr.trim() || `Main index exited ${index.code}`));
      }
      const parsed = readIndexFile(indexPath);
      if (parsed.kind === 'err') {
        drop(snapshot);
        return parsed;
      }
      drop(pending);
      pending = snapshot;
      return parsed;
    },
    command() {
      const snapshot = pending ?? serving;
      if (!snapshot) throw new Error('The Java pack was not built');
      return ['java', '-cp', snapshot.classpath, 'com.kindgi.pack.Main', 'serve'];
    },
    started(nowServing) {
      if (!pending) return;
      if (nowServing) {
        // The replaced JVM drains on its own snapshot (kept as `previous`); the one before it is gone.
        drop(previous);
        previous = serving;
        serving = pending;
      } else drop(pending);
      pending = undefined;
    },
    ignores(changed) {
      if (!changed) return false;
      return relative(dir, join(dir, changed)).split(sep)[0] === 'target';
    },
    close() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
