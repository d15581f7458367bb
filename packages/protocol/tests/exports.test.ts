import { describe, expect, it } from 'vitest';
import * as surface from '../src/index.js';

// The package's runtime exports, by name: adding, renaming or removing one must show up in review as a
// change to this list (types are checked by the packages that import them).
describe('@kindgi/protocol public surface', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(surface).sort()).toEqual([
      'DEFAULT_CALL_TIMEOUT_MS',
      'DEFAULT_MAX_BODY_BYTES',
      'DEFAULT_MAX_OUTPUT_BYTES',
      'DISPATCH_ERROR_CODES',
      'HANDLER_ERROR_CODES',
      'INDEX_ENVELOPE_VERSION',
      'LOG_LEVELS',
      'MAX_BUNDLE_MAP_ENTRIES',
      'MAX_JSON_DEPTH',
      'PACK_ERROR_CODES',
      'PACK_HEADERS',
      'PACK_PROTOCOL_VERSION',
      'PACK_TRANSPORT_ERROR_CODES',
      'ValidatorCache',
      'canonicalJson',
      'checkBundleMap',
      'compareCodeUnits',
      'createAjv',
      'describeFirstIssue',
      'describeThrown',
      'err',
      'exceedsJsonDepth',
      'isLogLevel',
      'isPackErrorCode',
      'isResult',
      'isZodSchema',
      'issuesFromAjv',
      'issuesFromZod',
      'jsonPointer',
      'messageOf',
      'ok',
      'packError',
      'parsePackRequest',
      'parsePackRequestText',
      'parsePackResponse',
      'toJSONSchemaSync',
      'toWireCause',
      'tracingRequested',
      'validatePackEnvDeclaration',
    ]);
  });
});
