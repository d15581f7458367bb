import type { PackCaller } from '@kindgi/bindings';
import type { PackServiceClient } from '@kindgi/pack-service';

/**
 * The transport at the end of a pack's pipeline: the protocol client of one pack service (a supervisor's
 * front or a remote service). The routing hint stays behind: the pack was chosen before this point.
 */
export function clientCaller(client: PackServiceClient): PackCaller {
  return (call) => {
    if (call.kind === 'invoke') {
      const { kind: _kind, packId: _packId, ...toolCall } = call;
      return client.invoke(toolCall);
    }
    const { kind: _kind, packId: _packId, ...checkCall } = call;
    return client.check(checkCall);
  };
}
