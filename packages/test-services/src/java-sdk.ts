import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, relative } from 'node:path';

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'target' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** A digest of the SDK's sources (every file under `sdks/java` but Maven's `target/`), in path order. */
function sourceDigest(sdkDir: string): string {
  const hash = createHash('sha256');
  for (const path of sourceFiles(sdkDir).sort()) {
    hash.update(`${relative(sdkDir, path)}\0`);
    hash.update(readFileSync(path));
  }
  return hash.digest('hex').slice(0, 32);
}

/**
 * Installs the Java SDK and the packs' parent POM in the local Maven repository (`mvn install` of
 * `sdks/java`, as docs/java.md does), once per version of its sources on this machine. Test files run in
 * parallel, and one `mvn install` rewriting the jars while another file's Maven or JVM reads them breaks
 * that one: the install runs under a machine-wide lock (flock(1)) and is skipped when these sources were
 * installed already. The stamp also records the installed jars (path, size, mtime): another checkout's
 * `mvn install` (a CI clone of another commit on the same machine) replaces them, and the next call here
 * installs these sources again.
 */
export function installJavaSdk(repoRoot: string): void {
  const sdkDir = join(repoRoot, 'sdks', 'java');
  // Beside the local repository, so a wiped ~/.m2 takes the stamp with it.
  mkdirSync(join(homedir(), '.m2'), { recursive: true });
  const stamp = join(homedir(), '.m2', `kindgi-java-sdk-${sourceDigest(sdkDir)}.installed`);
  const lock = join(tmpdir(), 'kindgi-java-sdk.lock');
  const installed = join(homedir(), '.m2', 'repository', 'com', 'kindgi');
  const script = [
    'jars() { find "$1" -name "*.jar" -type f -printf "%p %s %T@\\n" 2>/dev/null | sort; }',
    'if [ -e "$1" ] && [ "$(cat "$1")" = "$(jars "$3")" ]; then exit 0; fi',
    'mvn -B -q -f "$2" install -DskipTests && jars "$3" > "$1"',
  ].join('\n');
  execFileSync('flock', [lock, 'sh', '-c', script, 'sh', stamp, join(sdkDir, 'pom.xml'), installed], {
    stdio: 'pipe',
  });
}
