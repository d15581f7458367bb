import { compareCodeUnits } from '@kindgi/protocol';
import fg from 'fast-glob';
import picomatch from 'picomatch';
import {
  DEFAULT_DISCOVERY,
  DEFAULT_JAVA_DISCOVERY,
  DEFAULT_PYTHON_DISCOVERY,
  DEFAULT_SCALA_DISCOVERY,
  DISCOVERY_IGNORE,
  type DiscoveryPatterns,
  type PackLanguage,
  PRIMITIVE_KINDS,
  type PrimitiveFolder,
} from '../constants.js';

const DEFAULTS: Record<PackLanguage, Readonly<DiscoveryPatterns>> = {
  node: DEFAULT_DISCOVERY,
  python: DEFAULT_PYTHON_DISCOVERY,
  java: DEFAULT_JAVA_DISCOVERY,
  scala: DEFAULT_SCALA_DISCOVERY,
};

/** A file discovery found: its path relative to the pack root and the kinds whose patterns matched it. */
export interface DiscoveredFile {
  path: string;
  /** The kind its folder says (`tools/…` is a tool), when it lies in one of the four folders. */
  folderKind: PrimitiveFolder | undefined;
  /** Every kind whose patterns matched the file. */
  matchedKinds: PrimitiveFolder[];
}

/** The discovery patterns per kind: the config's where it names them, the language's defaults elsewhere. */
export function resolveDiscovery(
  discovery: Partial<Record<PrimitiveFolder, string[]>> | undefined,
  language: PackLanguage = 'node',
): DiscoveryPatterns {
  const defaults = DEFAULTS[language];
  return {
    tools: [...(discovery?.tools ?? defaults.tools)],
    guardrails: [...(discovery?.guardrails ?? defaults.guardrails)],
    agents: [...(discovery?.agents ?? defaults.agents)],
    flows: [...(discovery?.flows ?? defaults.flows)],
  };
}

/** The first of the four kind folders among a path's directories (`src/tools/x/index.ts` → `tools`). */
export function folderKindOf(path: string): PrimitiveFolder | undefined {
  const dirs = path.split('/').slice(0, -1);
  return dirs.find((dir): dir is PrimitiveFolder => (PRIMITIVE_KINDS as readonly string[]).includes(dir));
}

function toDiscovered(byPath: Map<string, Set<PrimitiveFolder>>): DiscoveredFile[] {
  return [...byPath.keys()].sort(compareCodeUnits).map((path) => ({
    path,
    folderKind: folderKindOf(path),
    matchedKinds: PRIMITIVE_KINDS.filter((kind) => byPath.get(path)?.has(kind)),
  }));
}

/** Walks the pack root with each kind's patterns; `node_modules`, dot entries, tests and `.d.ts` are skipped. */
export async function discoverFiles(packDir: string, patterns: DiscoveryPatterns): Promise<DiscoveredFile[]> {
  const byPath = new Map<string, Set<PrimitiveFolder>>();
  for (const kind of PRIMITIVE_KINDS) {
    const found = await fg(patterns[kind], {
      cwd: packDir,
      ignore: [...DISCOVERY_IGNORE],
      dot: false,
      onlyFiles: true,
      followSymbolicLinks: true,
      unique: true,
    });
    for (const path of found) {
      const kinds = byPath.get(path) ?? new Set<PrimitiveFolder>();
      kinds.add(kind);
      byPath.set(path, kinds);
    }
  }
  return toDiscovered(byPath);
}

/**
 * Classifies a build's source paths (bundle mode: the source tree need not exist) with the same patterns
 * and skip rules as `discoverFiles`.
 */
export function classifyPaths(paths: readonly string[], patterns: DiscoveryPatterns): DiscoveredFile[] {
  const ignored = picomatch([...DISCOVERY_IGNORE], { dot: true });
  const byPath = new Map<string, Set<PrimitiveFolder>>();
  for (const kind of PRIMITIVE_KINDS) {
    const matches = picomatch(patterns[kind], { dot: false });
    for (const path of paths) {
      if (ignored(path) || !matches(path)) continue;
      const kinds = byPath.get(path) ?? new Set<PrimitiveFolder>();
      kinds.add(kind);
      byPath.set(path, kinds);
    }
  }
  return toDiscovered(byPath);
}
