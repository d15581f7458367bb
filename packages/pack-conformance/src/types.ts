/** Values an index build must take as given, so two builds of one pack are byte-identical. */
export interface IndexPins {
  artifactVersion: string;
  /** ISO 8601 with milliseconds. */
  publishedAt: string;
}

/** Suite areas a target may declare it does not implement yet (they are skipped, and say so). */
export type ConformanceFeature = 'pack-env';

/** One pack service implementation under test. */
export interface ConformanceTarget {
  /** Shown in the suite's name: `node`, `java`, … */
  name: string;
  /** The fixture pack's root for this language: passed as `--module-root`. */
  packDir: string;
  /** Writes the fixture pack's index.json to `outPath`, with the pins taken as given. */
  buildIndex(outPath: string, pins: IndexPins): void | Promise<void>;
  /** The service's argv (program first); the suite appends `--index`, `--module-root` and `--host`. */
  command: readonly string[];
  /** Extra environment for every start (e.g. JAVA_HOME). */
  env?: Record<string, string>;
  unsupported?: readonly ConformanceFeature[];
}
