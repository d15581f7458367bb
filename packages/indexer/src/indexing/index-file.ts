import {
  describeThrown,
  err,
  type IndexAgent,
  type IndexFlow,
  type IndexGuardrail,
  type IndexTool,
  ok,
  type Result,
} from '@kindgi/protocol';
import type { PrimitiveFolder } from '../constants.js';
import { buildAgentEntry } from '../entries/agent.js';
import { buildFlowEntry } from '../entries/agent-flow.js';
import type { EntryContext } from '../entries/context.js';
import { describeExport, detectKinds, KIND_NOUN, unwrapDefinition, withArticle } from '../entries/definitions.js';
import { buildGuardrailEntry } from '../entries/guardrail.js';
import { buildToolEntry } from '../entries/tool.js';
import { fileError, type IndexerFileError } from '../errors.js';
import type { DiscoveredFile } from './discovery.js';
import type { ModuleNamespace } from './module-loader.js';

/** One indexed file: its kind, its entry and, for a guardrail, the check ids it ships. */
export type IndexedFile =
  | { kind: 'tools'; entry: IndexTool }
  | { kind: 'guardrails'; entry: IndexGuardrail; shippedCheckIds: string[] }
  | { kind: 'agents'; entry: IndexAgent }
  | { kind: 'flows'; entry: IndexFlow };

/** Where to import a discovered file from: its source, or (bundle mode) its bundle. */
export interface ImportTarget {
  absolutePath: string;
  bundle: boolean;
}

function decideKind(file: DiscoveredFile, value: unknown): Result<PrimitiveFolder, IndexerFileError> {
  const shapes = detectKinds(value);
  if (file.folderKind) {
    const folder = file.folderKind;
    if (shapes.length === 0 && typeof value === 'object' && value !== null && !Array.isArray(value)) return ok(folder);
    if (shapes.includes(folder)) return ok(folder);
    return err(
      fileError(
        'kind-mismatch',
        file.path,
        `files under ${folder}/ must default-export ${withArticle(KIND_NOUN[folder])}, but this one exports ${describeExport(value, shapes)}`,
      ),
    );
  }
  const candidates = shapes.filter((shape) => file.matchedKinds.includes(shape));
  if (candidates.length === 1 && candidates[0]) return ok(candidates[0]);
  const patterns = file.matchedKinds.map((k) => `discovery.${k}`).join(', ');
  return err(
    fileError(
      'ambiguous-kind',
      file.path,
      `matched by ${patterns} outside the tools/, guardrails/, agents/ and flows/ folders, and its default export is ${describeExport(value, shapes)}: export a tool ({ id, handler }), a guardrail ({ id, action, check }), an agent ({ id, instructions }) or a flow ({ id, nodes, edges })`,
    ),
  );
}

/** Builds a discovered file's index entry from its import; every failure is a file error, never a throw. */
export function indexFile(
  file: DiscoveredFile,
  target: ImportTarget,
  imported: Result<ModuleNamespace, unknown>,
  ctx: EntryContext,
): Result<IndexedFile, IndexerFileError> {
  if (imported.kind === 'err') {
    const from = target.bundle ? ` (bundle ${target.absolutePath})` : '';
    return err(fileError('file-import-failed', file.path, `import failed${from}: ${describeThrown(imported.error)}`));
  }
  const namespace = imported.value;
  if (!('default' in namespace) || namespace.default === undefined) {
    return err(
      fileError(
        'no-default-export',
        file.path,
        'has no default export: write `export default defineTool({ … })` (or defineGuardrail, defineAgent, defineFlow)',
      ),
    );
  }
  const unwrapped = unwrapDefinition(namespace.default);
  if (unwrapped.kind === 'err') {
    return err(
      fileError('manifest-validation-failed', file.path, `the default export is an error Result: ${unwrapped.error}`),
    );
  }
  const kind = decideKind(file, unwrapped.value);
  if (kind.kind === 'err') return kind;
  const def = unwrapped.value as Record<string, unknown>;
  const fail = (e: { code: IndexerFileError['code']; message: string }) => err(fileError(e.code, file.path, e.message));
  switch (kind.value) {
    case 'tools': {
      const built = buildToolEntry(def, ctx);
      return built.kind === 'ok' ? ok({ kind: 'tools', entry: built.value }) : fail(built.error);
    }
    case 'guardrails': {
      const built = buildGuardrailEntry(def, namespace, ctx);
      return built.kind === 'ok' ? ok({ kind: 'guardrails', ...built.value }) : fail(built.error);
    }
    case 'agents': {
      const built = buildAgentEntry(def, ctx);
      return built.kind === 'ok' ? ok({ kind: 'agents', entry: built.value }) : fail(built.error);
    }
    case 'flows': {
      const built = buildFlowEntry(def, ctx);
      return built.kind === 'ok' ? ok({ kind: 'flows', entry: built.value }) : fail(built.error);
    }
  }
}
