import { declaredSecrets, type PackCaller } from '@kindgi/bindings';
import { err, type PackIndex } from '@kindgi/protocol';
import type { PackHost } from './pack-host.js';
import type { RemotePackConfig } from './remote-pack.js';

const LOOPBACK = /^(127(\.\d{1,3}){3}|\[::1\]|localhost)$/i;

/** True when secrets may travel to `url`: over TLS, or without leaving the machine. */
export function secureForSecrets(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return protocol === 'https:' || LOOPBACK.test(hostname);
}

/** The tools of `index` that declare secrets, by id. */
function toolsWithSecrets(index: PackIndex): string[] {
  return index.tools.filter((tool) => declaredSecrets(tool) !== undefined).map((tool) => tool.id);
}

/**
 * Why a remote pack may not be served: its tools declare secrets and it is reached over plain HTTP on
 * another machine, without `allowInsecureSecrets`. Undefined when it may.
 */
export function insecureSecretsProblem(pack: RemotePackConfig, index: PackIndex): string | undefined {
  if (pack.allowInsecureSecrets || secureForSecrets(pack.url)) return undefined;
  const tools = toolsWithSecrets(index);
  if (tools.length === 0) return undefined;
  return `${pack.url}: pack ${index.packId} has tools declaring tenant secrets (${tools.join(', ')}) and is reached over plain http on another machine: use https, or set "allowInsecureSecrets": true on it`;
}

/**
 * `host` refusing, unsent, any call that carries secrets while the pack is reached over plain HTTP without
 * `allowInsecureSecrets` (a refreshed index may declare secrets the start did not see).
 */
export function guardSecretsTransport(host: PackHost, pack: RemotePackConfig): PackHost {
  if (pack.allowInsecureSecrets || secureForSecrets(pack.url)) return host;
  const call: PackCaller = async (packCall) => {
    const secrets = packCall.kind === 'invoke' ? packCall.ctx.secrets : undefined;
    if (secrets === undefined || Object.keys(secrets).length === 0) return host.call(packCall);
    const message = `Pack ${host.index.packId} is reached over plain http and may not receive tenant secrets (allowInsecureSecrets)`;
    return err({ code: 'pack-unavailable', message, status: 503 });
  };
  return {
    get dir() {
      return host.dir;
    },
    get index() {
      return host.index;
    },
    get serving() {
      return host.serving;
    },
    call,
    close: () => host.close(),
  };
}
