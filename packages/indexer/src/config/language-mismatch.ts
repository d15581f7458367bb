import { basename } from 'node:path';
import type { PackLanguage } from '../constants.js';

const OTHER_INDEXER: Record<Exclude<PackLanguage, 'node'>, string> = {
  python: 'index it with the Python SDK: run `python -m kindgi.pack index` in the pack folder',
  java: 'index it with the Java SDK: `java -cp "target/classes:$(cat target/classpath.txt)" com.kindgi.pack.Main index --pack-dir .`',
  scala:
    'index it with the JVM SDK: `java -cp "target/classes:$(cat target/classpath.txt)" com.kindgi.pack.Main index --pack-dir .`',
};

/** Why the TypeScript indexer refuses a pack, and which indexer to use instead. */
export function languageMismatchMessage(language: Exclude<PackLanguage, 'node'>, configPath: string): string {
  return `${basename(configPath)} declares a ${language} pack; kindgi-index reads Node packs only: ${OTHER_INDEXER[language]}`;
}
