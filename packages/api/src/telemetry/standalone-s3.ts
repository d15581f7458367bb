import type { TelemetryBinding } from '@kindgi/bindings';
import { Hono } from 'hono';
import { telemetryMiddleware } from './request.js';

/**
 * An S3 app served on its own (mounted at the root of its own port) with the same spans and request
 * events `createApp` gives its `/s3` mount.
 */
export function withS3Telemetry(s3App: Hono, telemetry?: TelemetryBinding): Hono {
  const app = new Hono();
  app.use('*', telemetryMiddleware(telemetry ? { telemetry } : {}));
  app.route('/', s3App);
  return app;
}
