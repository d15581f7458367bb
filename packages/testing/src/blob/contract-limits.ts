import { DEFAULT_MAX_OPEN_UPLOADS_PER_TENANT } from '@kindgi/bindings';
import { expect, it } from 'vitest';
import { type CurrentStorage, unwrap } from './contract-helpers.js';

/** What one tenant may hold: multipart uploads in progress, up to the default cap. */
export function limitsContract(storage: CurrentStorage): void {
  const cap = DEFAULT_MAX_OPEN_UPLOADS_PER_TENANT;
  const initiate = (tenant: string, key: string) =>
    storage().initiateMultipartUpload(tenant, 'b', key, { contentType: 'x/y' });

  it(`a tenant holds at most ${cap} uploads in progress, however many begin at once; others are unaffected`, async () => {
    // All at once, past the cap: exactly the cap's worth begin, the rest are storage-busy.
    const begun = await Promise.all(Array.from({ length: cap + 20 }, (_, n) => initiate('tenant-cap', `k/${n}`)));
    const opened = begun.filter((result) => result.kind === 'ok').map((result) => unwrap(result).uploadId);
    expect(opened).toHaveLength(cap);
    const refused = begun.filter((result) => result.kind === 'err');
    expect(refused).toHaveLength(20);
    expect(refused[0]).toMatchObject({
      kind: 'err',
      error: { code: 'storage-busy', retryAfterSeconds: expect.any(Number) },
    });
    expect(refused[0]?.kind === 'err' && refused[0].error.message).toContain(`${cap} multipart uploads`);
    // Another tenant is not counted against this one.
    expect((await initiate('tenant-other', 'k/0')).kind).toBe('ok');
    // A completed upload and an aborted one no longer count.
    const done = opened[0]!;
    const part = unwrap(await storage().uploadPart('tenant-cap', 'b', 'k/0', done, 1, { bytes: Buffer.from('x') }));
    unwrap(
      await storage().completeMultipartUpload('tenant-cap', 'b', 'k/0', done, [{ partNumber: 1, etag: part.etag }]),
    );
    unwrap(await storage().abortMultipartUpload('tenant-cap', 'b', 'k/1', opened[1]!));
    expect((await initiate('tenant-cap', 'again/0')).kind).toBe('ok');
    expect((await initiate('tenant-cap', 'again/1')).kind).toBe('ok');
    expect(await initiate('tenant-cap', 'again/2')).toMatchObject({ kind: 'err', error: { code: 'storage-busy' } });
  }, 120_000);
}
