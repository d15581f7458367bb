import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { installJavaSdk as installSdk } from '@kindgi/test-services/java-sdk';
import { REPO_ROOT } from './harness.js';

/** Installs the Java SDK and the packs' parent POM in the local Maven repository, as docs/java.md does. */
export function installJavaSdk(): void {
  installSdk(REPO_ROOT);
}

/**
 * Writes a Java pack `acme` 1.0.0 (`kindgi.config.json` with `"language": "java"`, a POM under the SDK's
 * parent) with `sources` (paths under `src/main/java`, e.g. `acme/tools/Greet.java`, to their text).
 */
export function writeJavaPack(dir: string, artifactId: string, sources: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'pom.xml'),
    `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>com.kindgi</groupId>
    <artifactId>kindgi-pack-parent</artifactId>
    <version>0.1.0</version>
    <relativePath/>
  </parent>
  <groupId>acme</groupId>
  <artifactId>${artifactId}</artifactId>
  <version>1.0.0</version>
</project>
`,
  );
  writeFileSync(
    join(dir, 'kindgi.config.json'),
    `${JSON.stringify({ language: 'java', pack: { id: 'acme', version: '1.0.0' } })}\n`,
  );
  for (const [path, text] of Object.entries(sources)) {
    const file = join(dir, 'src/main/java', path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}
