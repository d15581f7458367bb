import type { CallContext } from '@kindgi/protocol';
import type { CallLogDeps } from './call-log.js';

/**
 * The call's ctx with only the secrets the tool declares in `needsSpec.secrets`: a caller that sends
 * more (another tool's key) must not hand it to this handler. Dropped names are logged as
 * `secrets-dropped`, never their values. The ctx is returned as is when nothing is dropped, so the
 * common call (no secrets, or only declared ones) allocates nothing.
 */
export function withDeclaredSecrets(
  deps: CallLogDeps,
  toolId: string,
  declared: ReadonlySet<string>,
  ctx: CallContext,
): CallContext {
  const sent = ctx.secrets;
  if (typeof sent !== 'object' || sent === null) return ctx;
  const names = Object.keys(sent);
  if (names.every((name) => declared.has(name))) return ctx;
  const dropped = names.filter((name) => !declared.has(name));
  const kept: Record<string, unknown> = {};
  for (const name of names) {
    if (declared.has(name)) kept[name] = sent[name];
  }
  dropped.sort();
  deps.log.record(
    'secrets-dropped',
    'warn',
    `Tool "${toolId}" was sent secrets its needsSpec doesn't declare, dropped: ${dropped.join(', ')}`,
    { toolId, names: dropped, packId: deps.packId, artifactVersion: deps.artifactVersion },
  );
  return { ...ctx, secrets: kept };
}
