import type { RunCheckBinding, RunHandlerBinding, RunStore, TelemetryBinding } from '@kindgi/bindings';
import type { MiddlewareHandler } from 'hono';
import { type MetricsRouteOptions, metricsPath } from './metrics-route.js';
import { telemetryMiddleware } from './request.js';
import { observeRunStore } from './run-store.js';
import { instrumentRunCheck, instrumentRunHandler } from './tool-calls.js';

/** The bindings the telemetry layer wraps, and the metrics route it leaves out. */
export interface TelemetryInput {
  runHandler: RunHandlerBinding;
  runCheck?: RunCheckBinding;
  runStore?: RunStore;
  telemetry?: TelemetryBinding;
  metrics?: MetricsRouteOptions;
}

/**
 * The app's bindings with spans and metrics around every pack call and run transition, plus the request
 * middleware to mount first. Spans are no-ops until the host registers an OpenTelemetry SDK.
 */
export function applyTelemetry<T extends TelemetryInput>(input: T): { input: T; middleware: MiddlewareHandler } {
  const { telemetry } = input;
  const wrapped: T = { ...input, runHandler: instrumentRunHandler(input.runHandler, telemetry) };
  if (input.runCheck) wrapped.runCheck = instrumentRunCheck(input.runCheck);
  if (input.runStore && telemetry) wrapped.runStore = observeRunStore(input.runStore, telemetry);
  const options: Parameters<typeof telemetryMiddleware>[0] = {};
  if (telemetry) options.telemetry = telemetry;
  if (telemetry?.scrape && input.metrics) options.skipPath = metricsPath(input.metrics);
  return { input: wrapped, middleware: telemetryMiddleware(options) };
}
