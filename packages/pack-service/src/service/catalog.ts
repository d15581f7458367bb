import type { RunnableTool } from '@kindgi/call-runner';
import {
  type ErrorMessage,
  err,
  type IndexGuardrail,
  type IndexTool,
  ok,
  type PackIndex,
  packError,
  type Result,
  type ToolRef,
} from '@kindgi/protocol';

/** A tool the service runs, with its module resolved. */
export interface CatalogTool {
  entry: IndexTool;
  modulePath: string;
  /** The names its `needsSpec.secrets` declares: the only secrets its handler is given. */
  secrets: ReadonlySet<string>;
  /** The tool as the runner takes it, made once instead of per call. */
  runnable: RunnableTool;
}

/** A check the service runs, keyed by `checkId ?? id`. */
export interface CatalogCheck {
  checkId: string;
  entry: IndexGuardrail;
  modulePath: string;
}

/** What a pack service serves, looked up by tool id (and version) and by check id. */
export interface PackCatalog {
  tools: CatalogTool[];
  checks: CatalogCheck[];
  findTool(ref: ToolRef): Result<CatalogTool, ErrorMessage>;
  findCheck(id: string): Result<CatalogCheck, ErrorMessage>;
  /** Every module path, once each, in index order. */
  modulePaths(): string[];
}

/** The secret names an index tool entry declares (`needsSpec.secrets` is keyed by name, as the Java SDK reads it). */
export function declaredSecrets(entry: IndexTool): ReadonlySet<string> {
  const needs = entry.needsSpec;
  if (typeof needs !== 'object' || needs === null) return new Set();
  const secrets = (needs as { secrets?: unknown }).secrets;
  if (typeof secrets !== 'object' || secrets === null || Array.isArray(secrets)) return new Set();
  return new Set(Object.keys(secrets));
}

const byVersion = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });

/**
 * Builds the lookup tables for an index. Tools that carry a `spec` run in the runtime itself, so the
 * service doesn't serve them. `resolveModule` maps an index module path to the one to import.
 */
export function createCatalog(index: PackIndex, resolveModule: (modulePath: string) => string): PackCatalog {
  const tools: CatalogTool[] = index.tools
    .filter((entry) => entry.spec === undefined)
    .map((entry) => {
      const modulePath = resolveModule(entry.modulePath);
      const runnable = { id: entry.id, modulePath, inputSchema: entry.input, outputSchema: entry.output };
      return { entry, modulePath, secrets: declaredSecrets(entry), runnable };
    });
  const checks: CatalogCheck[] = [];
  const checkById = new Map<string, CatalogCheck>();
  for (const entry of index.guardrails) {
    const check = { checkId: entry.checkId ?? entry.id, entry, modulePath: resolveModule(entry.checkModulePath) };
    // Duplicates keep the first, as the indexer does.
    if (checkById.has(check.checkId)) continue;
    checkById.set(check.checkId, check);
    checks.push(check);
  }
  const toolsById = new Map<string, CatalogTool[]>();
  for (const tool of tools) {
    const list = toolsById.get(tool.entry.id) ?? [];
    list.push(tool);
    toolsById.set(tool.entry.id, list);
  }

  function describeVersions(list: CatalogTool[]): string {
    const versions = list.flatMap((tool) => (tool.entry.version === undefined ? [] : [tool.entry.version]));
    if (versions.length === 0) return 'unversioned';
    const named = versions.sort(byVersion).join(', ');
    return versions.length < list.length ? `${named} and unversioned` : named;
  }

  return {
    tools,
    checks,
    findTool(ref) {
      const list = toolsById.get(ref.id);
      if (!list || list.length === 0) {
        return err(packError('tool-not-in-pack', `This pack has no tool "${ref.id}"`, { toolId: ref.id }));
      }
      if (ref.version === undefined) {
        if (list.length === 1) return ok(list[0] as CatalogTool);
        return err(
          packError(
            'tool-version-mismatch',
            `Tool "${ref.id}" has several versions in this pack (${describeVersions(list)}); the caller named none`,
            { toolId: ref.id },
          ),
        );
      }
      const match = list.find((tool) => tool.entry.version === ref.version);
      if (match) return ok(match);
      return err(
        packError(
          'tool-version-mismatch',
          `Tool "${ref.id}" is ${describeVersions(list)} in this pack; the caller asked for ${ref.version}`,
          { toolId: ref.id },
        ),
      );
    },
    findCheck(id) {
      const check = checkById.get(id);
      if (check) return ok(check);
      return err(packError('check-not-in-pack', `This pack has no check "${id}"`, { checkId: id }));
    },
    modulePaths() {
      return [...new Set([...tools.map((tool) => tool.modulePath), ...checks.map((check) => check.modulePath)])];
    },
  };
}
