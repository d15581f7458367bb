import { indexToolVersion, type PackCallLayer, type PackReply } from '@kindgi/bindings';
import { type IndexTool, ok, type PackIndex, packError, type ToolRef, ValidatorCache } from '@kindgi/protocol';

// One cache for every remote pack of this process: a schema is compiled once, however many calls use it.
const outputValidators = new ValidatorCache();

// Each index's tools by id, made once per index (a refresh brings a new one): a call looks its tool up in
// constant time however many tools the remote pack publishes.
const toolsByIndex = new WeakMap<PackIndex, Map<string, IndexTool[]>>();

function toolsById(index: PackIndex): Map<string, IndexTool[]> {
  let byId = toolsByIndex.get(index);
  if (byId === undefined) {
    byId = new Map();
    for (const tool of index.tools) {
      if (tool.spec !== undefined) continue;
      const entries = byId.get(tool.id);
      if (entries === undefined) byId.set(tool.id, [tool]);
      else entries.push(tool);
    }
    toolsByIndex.set(index, byId);
  }
  return byId;
}

/** Builds an index's lookup ahead of its first call (the poller does, before a new index is served). */
export function prepareOutputCheck(index: PackIndex): void {
  toolsById(index);
}

/** The index entry a routed call names: its version, or the only entry of its id when it names none. */
function indexedTool(index: PackIndex, ref: ToolRef): IndexTool | undefined {
  const entries = toolsById(index).get(ref.id) ?? [];
  if (ref.version === undefined) return entries.length === 1 ? entries[0] : undefined;
  return entries.find((tool) => indexToolVersion(index, tool) === ref.version);
}

/** A `result`'s output checked against the tool's output schema: the reply, or the error a local pack gives. */
function checkOutput(reply: PackReply, tool: IndexTool): PackReply {
  if (reply.kind === 'err' || reply.value.kind !== 'result') return reply;
  const subject = { toolId: tool.id };
  const validator = outputValidators.get(tool.output, 'output');
  if (validator.kind === 'err') {
    const message = `Tool "${tool.id}" output schema failed to compile: ${validator.error}`;
    return ok(packError('output-validation-failed', message, subject));
  }
  const checked = validator.value(reply.value.output);
  if (checked.kind === 'ok') return reply;
  const message = `Tool "${tool.id}" handler produced output that failed validation`;
  return ok(packError('output-validation-failed', message, { ...subject, issues: checked.error }));
}

/**
 * The output check a local pack's own service makes, made again on a remote pack's replies: a remote service
 * is not ours, so its `result` is held to the output schema of the index it published (read through `index`,
 * which a refresh replaces). The reply's size and depth are the protocol client's to refuse, for every pack.
 */
export function remoteOutputCheckLayer(index: () => PackIndex): PackCallLayer {
  return (next) => async (call) => {
    const reply = await next(call);
    if (call.kind !== 'invoke') return reply;
    const tool = indexedTool(index(), call.tool);
    return tool === undefined ? reply : checkOutput(reply, tool);
  };
}
