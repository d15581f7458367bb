import { err, type Result, ValidatorCache } from '@kindgi/protocol';
import type { PackCallLayer, ToolCall } from '../pack-calls.js';
import type { SecretError } from '../secrets/errors.js';

/** What the secrets layer needs: where values come from, the env they are read in, what each tool declares. */
export interface SecretsLayerOptions {
  /** The values of those of `names` set for the tenant in `env` (a `SecretStore`'s `resolve`, or a cache of it). */
  resolve(tenantId: string, env: string, names: readonly string[]): Promise<Result<Map<string, string>, SecretError>>;
  /** The deployment's env (`KINDGI_ENV`, else `production`). */
  env: string;
  /** The secrets the tool a call reaches declares (`needsSpec.secrets`: name → JSON Schema); none: undefined. */
  declared(
    call: ToolCall,
  ): Readonly<Record<string, unknown>> | undefined | Promise<Readonly<Record<string, unknown>> | undefined>;
  /** Told the values a call is about to carry (a redactor remembers them, to keep them out of logs). */
  onSend?(values: readonly string[]): void;
}

const STORE_RETRY_MS = 1_000;

/**
 * Sends a tool call exactly the secrets its tool declares, for the call's tenant, each checked against its
 * schema. A caller's own `ctx.secrets` never passes. A declared secret that is not set answers
 * `secret-missing`, one failing its schema `secret-invalid` (both name the secrets, never a value), and the
 * pack is not called; a secret store that cannot answer is `pack-unavailable` (the call did not run).
 */
export function secretsLayer(options: SecretsLayerOptions): PackCallLayer {
  const validators = new ValidatorCache();
  return (next) => async (call) => {
    if (call.kind !== 'invoke') return next(call);
    const { secrets: _callerSent, ...ctx } = call.ctx;
    const declared = (await options.declared(call)) ?? {};
    const names = Object.keys(declared).sort();
    if (names.length === 0) return next(call.ctx.secrets === undefined ? call : { ...call, ctx });
    const resolved = await options.resolve(ctx.tenantId, options.env, names);
    if (resolved.kind === 'err') {
      const message = `The secrets of "${call.tool.id}" cannot be read now: ${resolved.error.message}`;
      return err({ code: 'pack-unavailable', message, status: 503, retryAfterMs: STORE_RETRY_MS });
    }
    const missing = names.filter((name) => !resolved.value.has(name));
    if (missing.length > 0) {
      const message = `Tool "${call.tool.id}" needs secrets that are not set for this tenant in env "${options.env}": ${missing.join(', ')}`;
      return err({ code: 'secret-missing', message, details: { secrets: missing, env: options.env } });
    }
    const secrets: Record<string, string> = {};
    const invalid: string[] = [];
    for (const name of names) {
      const value = resolved.value.get(name) as string;
      const validator = validators.get(declared[name] ?? {}, 'output');
      if (validator.kind === 'err' || validator.value(value).kind === 'err') invalid.push(name);
      else secrets[name] = value;
    }
    if (invalid.length > 0) {
      const message = `Tool "${call.tool.id}" needs secrets whose values do not match their schema: ${invalid.join(', ')}`;
      return err({ code: 'secret-invalid', message, details: { secrets: invalid, env: options.env } });
    }
    options.onSend?.(Object.values(secrets));
    return next({ ...call, ctx: { ...ctx, secrets } });
  };
}
