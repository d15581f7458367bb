import { describe, expect, it } from 'vitest';
import { tracingRequested } from '../src/index.js';

describe('tracingRequested', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }, true],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_TRACES_EXPORTER: ' console , OTLP ' }, true],
    [{ OTEL_TRACES_EXPORTER: 'console' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_TRACES_EXPORTER: 'otlp,none' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: ' TRUE ' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'false' }, true],
  ])('%j → %s', (env, expected) => {
    expect(tracingRequested(env)).toBe(expected);
  });
});
