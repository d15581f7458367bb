import {
  callerOfBindings,
  composePackCall,
  deadlineLayer,
  type PackCaller,
  type PackCallLayer,
  type RunCheckBinding,
  type RunHandlerBinding,
  type SecretStore,
  type SecretsLayerOptions,
  secretsLayer,
  type ToolRegistry,
} from '@kindgi/bindings';

/** Tenant secrets for `createApp`: where they are kept, the env calls read, what each tool declares. */
export interface SecretsInput {
  store: SecretStore;
  /** Default `production`. */
  env?: string;
  /** Default: the registry's descriptor of the called tool (`secrets`). */
  declared?: SecretsLayerOptions['declared'];
  /** Told the values each call carries (to redact them from logs). */
  onSend?: SecretsLayerOptions['onSend'];
}

/**
 * The secrets layer for `createApp`'s pipeline over `input.store` (`createApp` gives it the cached store),
 * declarations from `input.declared`, else from the registry.
 */
export function secretsPipeline(input: SecretsInput, env: string, registry: ToolRegistry | undefined): PackCallLayer {
  const declared: SecretsLayerOptions['declared'] =
    input.declared ??
    (async (call) => (registry ? (await registry.getTool(call.ctx.tenantId, call.tool.id))?.secrets : undefined));
  return secretsLayer({
    resolve: input.store.resolve,
    env,
    declared,
    ...(input.onSend ? { onSend: input.onSend } : {}),
  });
}

/**
 * The API's one way into a pack: every tool call and check (REST invoke, guardrail evaluate, runs and their
 * guardrails) gets the one default deadline here, then (with tenant secrets) the secrets its tool declares,
 * then goes to the bindings `createApp` was wired with (the telemetry around them, then the host's routing,
 * retry and transport).
 */
export function apiPackCaller(
  runHandler: RunHandlerBinding,
  runCheck: RunCheckBinding | undefined,
  secrets?: PackCallLayer,
): PackCaller {
  const layers = secrets ? [deadlineLayer(), secrets] : [deadlineLayer()];
  return composePackCall(...layers)(callerOfBindings(runHandler, runCheck));
}
