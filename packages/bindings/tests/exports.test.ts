import { describe, expect, it } from 'vitest';
import * as surface from '../src/index.js';

// The package's runtime exports, by name: adding, renaming or removing one must show up in review as a
// change to this list (types are checked by the packages that import them).
describe('@kindgi/bindings public surface', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(surface).sort()).toEqual([
      'ARTIFACTS_BUCKET',
      'DEFAULT_MULTIPART_EXPIRY_MS',
      'MAX_KEY_BYTES',
      'MAX_MULTIPART_PARTS',
      'MIN_MULTIPART_PART_BYTES',
      'TERMINAL_EVENT_KINDS',
      'TERMINAL_RUN_STATUSES',
      'afterUploadMarkers',
      'buildMeta',
      'checkAddress',
      'checkCompletion',
      'checkDigests',
      'clampListLimit',
      'clampMaxUploads',
      'compareKeys',
      'compareUploads',
      'consumeBody',
      'createIndexToolRegistry',
      'decodeListCursor',
      'describeIndexGuardrails',
      'describeIndexTools',
      'describedToolPack',
      'encodeListCursor',
      'indexToolVersion',
      'isPartNumber',
      'keyNotFound',
      'listByPrefixOver',
      'matchesFilter',
      'metaInputFromInit',
      'multipartEtag',
      'nameFromKey',
      'normalizeEtag',
      'pageUploads',
      'preconditionFailed',
      'prefixSuccessor',
      'sameCompletion',
      'writeConditionsHold',
    ]);
  });
});
