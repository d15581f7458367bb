import {
  callerOfBindings,
  composePackCall,
  deadlineLayer,
  type PackCaller,
  type RunCheckBinding,
  type RunHandlerBinding,
} from '@kindgi/bindings';

/**
 * The API's one way into a pack: every tool call and check (REST invoke, guardrail evaluate, runs and their
 * guardrails) gets the one default deadline here, then goes to the bindings `createApp` was wired with (the
 * telemetry around them, then the host's routing, retry and transport).
 */
export function apiPackCaller(runHandler: RunHandlerBinding, runCheck: RunCheckBinding | undefined): PackCaller {
  return composePackCall(deadlineLayer())(callerOfBindings(runHandler, runCheck));
}
