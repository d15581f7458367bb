import { indexToolVersion, type PackCallLayer, type PackReply } from '@kindgi/bindings';
import { type IndexTool, ok, type PackIndex, packError, type ToolRef, ValidatorCache } from '@kindgi/protocol';

// One cache for every remote pack of this process: a schema is compiled once, however many calls use it.
const outputValidators = new ValidatorCache();

/** The index entry a routed call names: its version, or the only entry of its id when it names none. */
function indexedTool(index: PackIndex, ref: ToolRef): IndexTool | undefined {
  const entries = index.tools.filter((tool) => tool.id === ref.id && tool.spec === undefined);
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
